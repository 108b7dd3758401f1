#!/usr/bin/env bash
# Keeps carried files on a GPU node between calls: copies each FILE into STASH (default
# /tmp/vsa-stash), which outlives the call while the machine stays warm (30 s after a call on
# the H200). For what is too large for one call's 64 MiB, e.g. the parts that
# scripts/peers/pack_flash_attn4.py writes: one call carries and stashes part01, the next
# carries the rest and joins them (scripts/peers/join_parts.sh looks in STASH too).
#   scripts/device/stash.sh FILE...        (VSA_STASH=DIR to stash elsewhere)
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,8p' "$0"; exit 2; }
STASH="${VSA_STASH:-/tmp/vsa-stash}"
mkdir -p "$STASH" || exit 3
rc=0
for f in "$@"; do
  if [ ! -f "$f" ]; then echo "stash: $f: no such file (was it carried?)"; rc=3; continue; fi
  cp "$f" "$STASH/" || { rc=3; continue; }
  echo "stashed $(sha256sum "$STASH/$(basename "$f")" | cut -c1-16) $(stat -c %s "$f") $(basename "$f")"
done
echo "$STASH now holds: $(ls "$STASH" | tr '\n' ' ')"
exit "$rc"
