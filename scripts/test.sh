#!/usr/bin/env bash
# Installs what is missing, builds everything (sm_90a and sm_100a images
# included: compiling them is a test) and runs every test through CTest.
# GPU tests skip with a visible reason where there is no GPU.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
install_debian_packages
install_disassembler
install_python_test_tools
install_slurm
configure_and_build -DVSA_BUILD_TESTS=ON
say "running tests (cuobjdump: $VSA_CUOBJDUMP)"
cd "$VSA_BUILD"
ctest --output-on-failure -j "$VSA_JOBS" "$@"
