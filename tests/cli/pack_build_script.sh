#!/usr/bin/env bash
# scripts/device/pack_build.sh on a stand-in build folder: the default carries vsa-bench, the
# GPU tests and the plugins only; --tools adds the drivers trace.sh and kv_ceiling.sh run and no unit tests;
# --all adds every tool and the unit tests; --xz leaves one archive that unpacks to the same
# files; an unknown option exits 2.
# Usage: pack_build_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
B="$WORK/build"
mkdir -p "$B/tests" "$B/tools" "$B/plugins"
for f in vsa-bench tests/vsa_device_tests tests/vsa_unit_tests tools/sm90a_fwd_trace tools/sm90a_bwd_timing \
  tools/sm90a_kv_ceiling tools/sm90a_fwd_bench; do
  printf '#!/bin/sh\n' > "$B/$f"; chmod +x "$B/$f"
done
echo so > "$B/plugins/example.so"
listing() { (cd "$1" && find . -type f | sort | tr '\n' ' '); }

"$SRC/scripts/device/pack_build.sh" "$B" "$WORK/slim" > /dev/null || fail "default pack exited $?"
got="$(listing "$WORK/slim")"
[ "$got" = "./plugins/example.so ./tests/vsa_device_tests ./vsa-bench " ] || fail "default pack: $got"

"$SRC/scripts/device/pack_build.sh" "$B" "$WORK/slim" --tools > /dev/null || fail "--tools pack exited $?"
got="$(listing "$WORK/slim")"
[ "$got" = "./plugins/example.so ./tests/vsa_device_tests ./tools/sm90a_bwd_timing ./tools/sm90a_fwd_trace ./tools/sm90a_kv_ceiling ./vsa-bench " ] ||
  fail "--tools pack: $got"

"$SRC/scripts/device/pack_build.sh" "$B" "$WORK/slim" --all > /dev/null || fail "--all pack exited $?"
[ -x "$WORK/slim/tests/vsa_unit_tests" ] && [ -x "$WORK/slim/tools/sm90a_fwd_bench" ] || fail "--all pack: $(listing "$WORK/slim")"

"$SRC/scripts/device/pack_build.sh" "$B" "$WORK/slim" --tools --xz > /dev/null || fail "--tools --xz pack exited $?"
got="$(listing "$WORK/slim")"
[ "$got" = "./slim.tar.xz " ] || fail "--xz pack left more than the archive: $got"
tar xJf "$WORK/slim/slim.tar.xz" -C "$WORK/slim" || fail "the --xz archive does not unpack"
got="$(listing "$WORK/slim")"
[ "$got" = "./plugins/example.so ./slim.tar.xz ./tests/vsa_device_tests ./tools/sm90a_bwd_timing ./tools/sm90a_fwd_trace ./tools/sm90a_kv_ceiling ./vsa-bench " ] ||
  fail "--tools --xz unpacked: $got"
[ -x "$WORK/slim/vsa-bench" ] || fail "--xz lost the executable bit"

"$SRC/scripts/device/pack_build.sh" "$B" "$WORK/slim/" --tools --xz > "$WORK/xz.log" 2>&1 || { cat "$WORK/xz.log"; fail "--xz into SLIM_DIR/ exited $?"; }
[ "$(listing "$WORK/slim")" = "./slim.tar.xz " ] || fail "--xz into SLIM_DIR/: $(listing "$WORK/slim")"
grep -q "tar xJf $WORK/slim/slim.tar.xz -C $WORK/slim)" "$WORK/xz.log" || { cat "$WORK/xz.log"; fail "--xz: the unpack command"; }

"$SRC/scripts/device/pack_build.sh" "$B" "$WORK/slim" --all --tools > /dev/null 2>&1
[ $? = 2 ] || fail "--all with --tools should exit 2"

"$SRC/scripts/device/pack_build.sh" "$B" "$WORK/slim" --bogus > /dev/null 2>&1
[ $? = 2 ] || fail "an unknown option should exit 2"
echo "pack_build.sh: default, --tools, --all and --xz carry what they say; an unknown option exits 2"
