#!/usr/bin/env bash
# Every report names the source it was built from: `vsa-bench info --json` gives the git
# sha of the source tree at build time (not at configure time, which went stale after
# the next commit). Skips (77) outside a git checkout.
# Usage: git_sha.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
head="$(git -C "$SRC" rev-parse --short=12 HEAD 2>/dev/null)" || { echo "SKIP: $SRC is not a git checkout"; exit 77; }
"$BIN" info --json --no-cuda > "$WORK/info.json" || fail "info --json exited $?"
sha="$(json_get "$WORK/info.json" 'd["build"]["git_sha"]')"
case "$sha" in
  "$head" | "$head-dirty") echo "git sha $sha matches HEAD $head" ;;
  *) fail "binary says git sha '$sha', the source tree is at $head (rebuild after a commit must refresh it)" ;;
esac
