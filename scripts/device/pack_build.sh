#!/usr/bin/env bash
# Copies what the device scripts run from a build folder into a slim one that fits a
# device call's 64 MiB carry limit: the self-contained vsa-bench, the GPU and unit test
# binaries, the tools, and the example plugins. Host symbols are stripped (the kernels'
# images and the SASS that `lint` reads stay). The unit tests and the tools (trace.sh) take
# another ~40 MB: only with --all, and then carry little else; --tools adds the sm90a drivers
# that trace.sh runs (~12 MB, 43 MB in all) and no unit tests.
#   scripts/device/pack_build.sh BUILD_DIR SLIM_DIR [--all|--tools]   (e.g. build build-carry; /build*/ is git-ignored)
set -euo pipefail
BUILD="${1:?build dir}"; SLIM="${2:?slim dir}"; ALL="${3:-}"
rm -rf "$SLIM"; mkdir -p "$SLIM/tests" "$SLIM/tools" "$SLIM/plugins"
copy() {  # copy [-s|-S] SRC DST: -s strips host debug symbols, -S every host symbol
  local strip=""; case "$1" in -s) strip=--strip-debug; shift ;; -S) strip=--strip-all; shift ;; esac
  [ -e "$1" ] || return 0
  cp "$1" "$2"
  [ -n "$strip" ] && strip "$strip" "$2/$(basename "$1")" 2>/dev/null || true
}
copy -s "$BUILD/vsa-bench" "$SLIM"
copy -s "$BUILD/tests/vsa_device_tests" "$SLIM/tests"
if [ "$ALL" = --all ]; then
  copy -s "$BUILD/tests/vsa_unit_tests" "$SLIM/tests"
  for t in "$BUILD"/tools/*; do [ -f "$t" ] && [ -x "$t" ] && copy -s "$t" "$SLIM/tools"; done
elif [ "$ALL" = --tools ]; then
  # All symbols off the two drivers (2 MB): with the working tree (~18 MB) the carry
  # otherwise passed 64 MiB on 2026-12-06.
  for t in sm90a_fwd_trace sm90a_bwd_timing; do copy -S "$BUILD/tools/$t" "$SLIM/tools"; done
elif [ -n "$ALL" ]; then
  echo "pack_build.sh: unknown option $ALL (--all or --tools)" >&2; exit 2
fi
for p in "$BUILD"/plugins/*.so; do copy -s "$p" "$SLIM/plugins"; done
du -sh "$SLIM" | awk '{print "slim build: " $1}'
du -a "$SLIM" | sort -rn | head -6
