#!/usr/bin/env bash
# Do two builds behave the same on this machine? Runs the same suites (and the read-only
# commands) with both executables and diffs reports and outputs byte for byte, after
# masking only what legitimately differs between two runs: timestamps, durations, the
# git sha, the host name and the paths given on the command line.
# For a change meant to move code without changing behaviour (a refactor against its
# parent build). Exit 0 identical, 1 a difference (printed as a diff).
# Usage: scripts/dev/same_behaviour.sh PARENT_BIN NEW_BIN [SUITE ...]   (default: smoke qualify correctness)
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 PARENT_BIN NEW_BIN [SUITE ...]" >&2; exit 2; }
A="$(realpath "$1")"; B="$(realpath "$2")"; shift 2
SUITES=("$@"); [ ${#SUITES[@]} -gt 0 ] || SUITES=(smoke qualify correctness)
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
status=0

# mask FILE: prints FILE with the run-dependent fields replaced by placeholders.
mask() { python3 "$HERE/mask_run_fields.py" "$1" "$A" "$B" "$WORK"; }

same() {  # same NAME: diffs $WORK/a/NAME and $WORK/b/NAME after masking
  if ! diff -u --label "parent/$1" --label "new/$1" <(mask "$WORK/a/$1") <(mask "$WORK/b/$1"); then
    status=1
  fi
}

for side in a b; do
  bin=$A; [ $side = b ] && bin=$B
  mkdir -p "$WORK/$side"
  cd "$WORK/$side" || exit 2
  "$bin" list > list.txt 2>&1; echo "rc $?" >> list.txt
  "$bin" info --json > info.json 2>/dev/null
  for s in "${SUITES[@]}"; do
    "$bin" list cases "$s" > "cases-$s.txt" 2>&1; echo "rc $?" >> "cases-$s.txt"
    "$bin" run "$s" --out "$WORK/$side/run-$s" --label same > "run-$s.txt" 2>&1; echo "rc $?" >> "run-$s.txt"
    report=$(ls "run-$s"/*.json | head -1)
    cp "$report" "report-$s.json"; cp "${report%.json}.md" "report-$s.md"
    "$bin" render "report-$s.json" > "render-$s.md" 2>&1; echo "rc $?" >> "render-$s.md"
  done
  first="report-${SUITES[0]}.json"
  "$bin" compare "$first" "$first" > compare.md 2>&1; echo "rc $?" >> compare.md
  "$bin" compare "$first" "$first" --format json > compare.json 2>&1; echo "rc $?" >> compare.json
  "$bin" fleet . > fleet.md 2>&1; echo "rc $?" >> fleet.md
  "$bin" fleet . --format json > fleet.json 2>&1; echo "rc $?" >> fleet.json
  "$bin" run "$WORK/no-such-suite.json" > bad-suite.txt 2>&1; echo "rc $?" >> bad-suite.txt
  "$bin" selftest --out "$WORK/$side/selftest" > selftest.txt 2>&1; echo "rc $?" >> selftest.txt
done

same list.txt; same info.json; same selftest.txt; same compare.md; same compare.json; same fleet.md; same fleet.json; same bad-suite.txt
for s in "${SUITES[@]}"; do
  for f in "cases-$s.txt" "run-$s.txt" "report-$s.json" "report-$s.md" "render-$s.md"; do same "$f"; done
done
[ $status = 0 ] && echo "same behaviour: ${SUITES[*]} (reports, Markdown, list, info, render, compare, fleet, selftest, a bad suite)"
exit $status
