#!/usr/bin/env bash
# Installs what is missing, builds, and runs `vsa-bench run` on the default
# suite (qualify). Extra arguments go to `vsa-bench run`. Without a GPU the CPU
# reference checks still run and GPU cases are reported as SKIP with the reason.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
install_debian_packages
configure_and_build -DVSA_BUILD_TESTS=OFF
say "running: vsa-bench run ${*:-qualify}"
exec "$VSA_BUILD/vsa-bench" run "$@"
