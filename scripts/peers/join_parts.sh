#!/usr/bin/env bash
# Joins the parts of a split archive and unpacks it: MANIFEST lists "sha256 size name" per
# part (scripts/peers/pack_flash_attn4.py writes one); each part is looked up beside the
# manifest, then in VSA_STASH (default /tmp/vsa-stash, where scripts/device/stash.sh put parts
# carried by earlier calls). Every part must be found with its digest, else nothing is
# unpacked and the missing or bad parts are named.
#   scripts/peers/join_parts.sh MANIFEST DEST_DIR
# Exit: 0 unpacked, 2 bad arguments, 3 a part missing or corrupt, 4 unpacking failed.
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,8p' "$0"; exit 2; }
MANIFEST="$1"; DEST="$2"
[ -f "$MANIFEST" ] || { echo "join_parts: no manifest $MANIFEST"; exit 2; }
STASH="${VSA_STASH:-/tmp/vsa-stash}"
dir="$(dirname "$MANIFEST")"
paths=(); bad=()
while read -r digest size name; do
  [ -n "${name:-}" ] || continue
  found=""
  for cand in "$dir/$name" "$STASH/$name"; do
    if [ -f "$cand" ] && [ "$(stat -c %s "$cand")" = "$size" ] && [ "$(sha256sum "$cand" | cut -d' ' -f1)" = "$digest" ]; then
      found="$cand"; break
    fi
  done
  if [ -n "$found" ]; then paths+=("$found"); else bad+=("$name"); fi
done <"$MANIFEST"
if [ ${#bad[@]} -gt 0 ]; then
  echo "join_parts: missing or corrupt (looked in $dir and $STASH): ${bad[*]}"
  exit 3
fi
[ ${#paths[@]} -gt 0 ] || { echo "join_parts: $MANIFEST lists no parts"; exit 2; }
mkdir -p "$DEST" || exit 4
cat "${paths[@]}" | tar -xJ -C "$DEST" || { echo "join_parts: unpacking into $DEST failed"; exit 4; }
echo "join_parts: ${#paths[@]} parts of $(basename "$MANIFEST") -> $DEST"
