#!/usr/bin/env bash
# Copies what the device scripts run from a build folder into a slim one that fits a
# device call's 64 MiB carry limit: the self-contained vsa-bench, the GPU and unit test
# binaries, the tools, and the example plugins. Host symbols are stripped (the kernels'
# images and the SASS that `lint` reads stay). The unit tests and the tools (trace.sh) take
# another ~40 MB: only with --all, and then carry little else; --tools adds the sm90a drivers
# that trace.sh and kv_ceiling.sh run (~12 MB, 46 MB in all) and no unit tests. --xz leaves SLIM_DIR holding one
# archive, slim.tar.xz (46 MB packs to ~10 MB), so the tools, the GPU tests and a peer's sources
# fit one call; the call unpacks it first: `tar xJf SLIM_DIR/slim.tar.xz -C SLIM_DIR`.
#   scripts/device/pack_build.sh BUILD_DIR SLIM_DIR [--all|--tools] [--xz]   (e.g. build build-carry; /build*/ is git-ignored)
set -euo pipefail
BUILD="${1:?build dir}"; SLIM="${2:?slim dir}"; shift 2
SLIM="${SLIM%/}"; [ -n "$SLIM" ] || { echo "pack_build.sh: SLIM_DIR must not be /" >&2; exit 2; }
ALL=""; XZ=""
for opt in "$@"; do
  case "$opt" in
    --all|--tools)
      [ -z "$ALL" ] || [ "$ALL" = "$opt" ] || { echo "pack_build.sh: --all and --tools exclude each other" >&2; exit 2; }
      ALL="$opt" ;;
    --xz) XZ=1 ;;
    *) echo "pack_build.sh: unknown option $opt (--all, --tools, --xz)" >&2; exit 2 ;;
  esac
done
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
  # All symbols off the drivers (2 MB): with the working tree (~18 MB) the carry
  # otherwise passed 64 MiB on 2026-12-06.
  for t in sm90a_fwd_trace sm90a_bwd_timing sm90a_kv_ceiling; do copy -S "$BUILD/tools/$t" "$SLIM/tools"; done
fi
for p in "$BUILD"/plugins/*.so; do copy -s "$p" "$SLIM/plugins"; done
du -sh "$SLIM" | awk '{print "slim build: " $1}'
du -a "$SLIM" | sort -rn | head -6
if [ -n "$XZ" ]; then
  tar cJf "$SLIM.tar.xz.tmp" -C "$SLIM" . && rm -rf "$SLIM" && mkdir -p "$SLIM" && mv "$SLIM.tar.xz.tmp" "$SLIM/slim.tar.xz"
  printf 'packed: %s (unpack on the device: tar xJf %s/slim.tar.xz -C %s)\n' "$(du -h "$SLIM/slim.tar.xz" | cut -f1)" "$SLIM" "$SLIM"
fi
