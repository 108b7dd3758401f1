# Carrying an archive too large for one device call: scripts/peers/join_parts.sh joins the
# parts of a manifest found beside it and in the stash (scripts/device/stash.sh's folder),
# checks each part's size and digest, and unpacks; a missing or corrupt part is named and
# nothing is unpacked. The manifest format is pack_flash_attn4.py's ("sha256 size name").
source "$(dirname "$0")/lib.sh"
JOIN="$SRC/scripts/peers/join_parts.sh"; STASH_SH="$SRC/scripts/device/stash.sh"
mkdir -p "$WORK/src/pkg" "$WORK/carried" "$WORK/stash"
head -c 300000 /dev/urandom >"$WORK/src/pkg/lib.so"; echo "import os" >"$WORK/src/pkg/__init__.py"
tar -C "$WORK/src" -cf - . | xz -0 -c >"$WORK/a.tar.xz"
split -b 100000 -d -a 2 "$WORK/a.tar.xz" "$WORK/carried/a.tar.xz.part"
: >"$WORK/carried/a.parts"
for f in "$WORK"/carried/a.tar.xz.part*; do
  echo "$(sha256sum "$f" | cut -d' ' -f1) $(stat -c %s "$f") $(basename "$f")" >>"$WORK/carried/a.parts"
done
[ "$(wc -l <"$WORK/carried/a.parts")" -ge 3 ] || fail "expected at least 3 parts"

# The first part comes from the stash, as an earlier call would have left it.
VSA_STASH="$WORK/stash" "$STASH_SH" "$WORK/carried/a.tar.xz.part00" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "stash"; }
grep -q "stashed .* a.tar.xz.part00" "$WORK/out" || { cat "$WORK/out"; fail "stash did not say what it kept"; }
rm "$WORK/carried/a.tar.xz.part00"
VSA_STASH="$WORK/stash" "$JOIN" "$WORK/carried/a.parts" "$WORK/site" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out"; fail "join exit $rc"; }
cmp -s "$WORK/src/pkg/lib.so" "$WORK/site/pkg/lib.so" || fail "joined file differs"

# Not stashed (the machine went cold between calls): named, nothing unpacked.
VSA_STASH="$WORK/nowhere" "$JOIN" "$WORK/carried/a.parts" "$WORK/site2" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 3 ] && grep -q "missing or corrupt.*a.tar.xz.part00" "$WORK/out" || { cat "$WORK/out"; fail "missing part: exit $rc"; }
[ ! -e "$WORK/site2" ] || fail "unpacked although a part was missing"
# A corrupt part (same size, one byte changed) is refused by its digest.
cp "$WORK/stash/a.tar.xz.part00" "$WORK/carried/"
# (a byte other than the one there: writing a fixed 'X' left 1 part in 256 unchanged, a flaky test)
was=$(dd if="$WORK/carried/a.tar.xz.part01" bs=1 skip=10 count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
[ "$was" = "58" ] && byte='Y' || byte='X'
printf '%s' "$byte" | dd of="$WORK/carried/a.tar.xz.part01" bs=1 seek=10 conv=notrunc 2>/dev/null
VSA_STASH="$WORK/nowhere" "$JOIN" "$WORK/carried/a.parts" "$WORK/site3" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 3 ] && grep -q "a.tar.xz.part01" "$WORK/out" || { cat "$WORK/out"; fail "corrupt part: exit $rc"; }
VSA_STASH="$WORK/stash" "$STASH_SH" "$WORK/none" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 3 ] && grep -q "no such file" "$WORK/out" || { cat "$WORK/out"; fail "stash of a missing file: exit $rc"; }
"$JOIN" >/dev/null 2>&1; [ $? -eq 2 ] || fail "join without arguments"
echo "ok"
