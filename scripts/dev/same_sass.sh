#!/usr/bin/env bash
# Do two builds hold the same machine code? Diffs the SASS of every kernel image of two
# executables (cuobjdump --dump-sass), masking only what depends on where the source tree
# was: the file identifiers and the hash nvcc puts into anonymous-namespace names
# (_GLOBAL__N__<hash>_..._cu_<hash>). `vsa-bench lint --against` compares counts per
# kernel; this compares every instruction, for a change meant not to touch device code.
# Exit 0 identical, 1 different (diff printed), 2 usage or no cuobjdump.
# Usage: scripts/dev/same_sass.sh PARENT_BIN NEW_BIN   ($VSA_CUOBJDUMP or cuobjdump on PATH)
set -uo pipefail
[ $# = 2 ] || { echo "usage: $0 PARENT_BIN NEW_BIN" >&2; exit 2; }
TOOL="${VSA_CUOBJDUMP:-$(command -v cuobjdump || true)}"
[ -x "$TOOL" ] || { echo "same_sass: no cuobjdump (set VSA_CUOBJDUMP)" >&2; exit 2; }
sass() {
  "$TOOL" --dump-sass "$1" | grep -v '^identifier = ' |
    sed -E 's/_GLOBAL__N__[0-9a-f]{8}_[0-9]+_[A-Za-z0-9_]+_cu_[0-9a-f]{8}/_GLOBAL__N__<anon>/g'
}
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
sass "$1" > "$WORK/a" || exit 2
sass "$2" > "$WORK/b" || exit 2
if ! cmp -s "$WORK/a" "$WORK/b"; then
  diff -u --label "parent" --label "new" "$WORK/a" "$WORK/b" | head -n 200
  exit 1
fi
echo "same SASS: $(grep -c 'Function :' "$WORK/a") kernels, $(wc -l < "$WORK/a") lines"
