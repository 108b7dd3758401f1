#!/usr/bin/env bash
# Installs what is missing, builds everything (sm_90a and sm_100a images
# included: compiling them is a test) with warnings as errors and runs every test
# through CTest; then the host code again under AddressSanitizer + UBSan (the asan preset:
# the unit and CLI tests; VSA_ASAN=0 leaves it out); then the format check. GPU tests skip with a visible
# reason where there is no GPU. Extra arguments go to the first ctest.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
install_debian_packages
install_disassembler
install_python_test_tools
configure_and_build -DVSA_BUILD_TESTS=ON -DVSA_WERROR=ON
say "running tests (cuobjdump: $VSA_CUOBJDUMP)"
status=0
(cd "$VSA_BUILD" && ctest --output-on-failure -j "$VSA_JOBS" "$@") || status=1

# The host code again under AddressSanitizer + UBSan (the asan preset, build-asan: no
# sm_90a/sm_100a images): the unit and CLI tests. A finding ends the test that hit it
# (halt_on_error), with the stack in its output. About 30 minutes on 2 cores: the build
# (~20, no kernel images; host code at -Og -g1, which took 37 at -O1 -g) and ~9 of tests;
# cli.sm100a_deletions and cli.sm100a_wrapper_opcodes (nvcc compiles, nothing sanitized) are
# left out by the preset. Tests that need a backend this build lacks
# (the sm_90a / sm_100a kernels, the sm100a model) skip with that reason.
cd "$VSA_ROOT"
if [ "${VSA_ASAN:-1}" != 0 ]; then
  say "host code under AddressSanitizer + UBSan (build-asan)"
  cmake --preset asan -DCMAKE_CUDA_COMPILER="$(find_nvcc)" >/dev/null
  cmake --build --preset asan -j "$VSA_JOBS"
  ctest --preset asan -j "$VSA_JOBS" || status=1
fi

say "format (.clang-format)"
"$VSA_ROOT/scripts/check_format.sh" > "$VSA_BUILD/format.diff" || { status=1; say "format: the diffs are in $VSA_BUILD/format.diff"; }
exit $status
