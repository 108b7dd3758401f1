#!/usr/bin/env bash
# Usage the review of 2026-12-06 found answered badly, each now refused naming what is wrong:
# a word that names no command, a positional or option a command would ignore, two output
# formats at once, floors on a folder without reports, compare --baseline alone; a command that
# cannot finish names itself (exit 4); and every command's --help gives its exit codes.
source "$(dirname "$0")/lib.sh"
expect() {  # expect RC TEXT COMMAND...: exit RC and TEXT in the output
  local rc_want="$1" text="$2"; shift 2
  "$@" >"$WORK/out" 2>&1; local rc=$?
  [ "$rc" -eq "$rc_want" ] || { cat "$WORK/out"; fail "$*: exit $rc, expected $rc_want"; }
  grep -qF -- "$text" "$WORK/out" || { cat "$WORK/out"; fail "$*: no \"$text\" in the output"; }
}
report="$SRC/results/baselines/h200-sm90a.json"

expect 2 'unknown command "bogus"; the commands are info, list, run' "$BIN" bogus
expect 2 'unknown command "bogus"' "$BIN" -v bogus run
expect 2 "a suite (smoke) applies to \`list cases SUITE\` only" "$BIN" list suites smoke
expect 2 "excludes" "$BIN" info --no-cuda --format text --json
expect 2 "excludes" "$BIN" compare "$report" "$report" --format md --json
expect 2 "excludes" "$BIN" fleet "$report" --failed-hosts --json
expect 2 "excludes" "$BIN" fleet "$report" --failed-hosts --format json
mkdir -p "$WORK/empty"
expect 2 "no vsa-bench report found in $WORK/empty" "$BIN" floors "$WORK/empty"
expect 2 "compare --baseline $report needs at least one other report" "$BIN" compare --baseline "$report"
if [ -w /dev/full ]; then
  expect 4 "vsa-bench render: write failed: /dev/full" "$BIN" render "$report" --out /dev/full
fi
# Help and the version answer before any word is read as a command, as CLI11 does.
expect 0 "Typical use" "$BIN" -h bogus
expect 0 "vsa-bench " "$BIN" --version bogus
# Still fine: the alias alone, and a command after a top-level option.
"$BIN" info --no-cuda --json >/dev/null || fail "info --json"
"$BIN" -v list suites >/dev/null 2>&1 || fail "-v list suites"

# Every command a user runs says its exit codes in its --help.
for cmd in info list run lint selftest sanitize repro dump compare fleet floors render; do
  "$BIN" "$cmd" --help >"$WORK/help" 2>&1 || fail "$cmd --help: exit $?"
  grep -q "Exit codes" "$WORK/help" || fail "$cmd --help gives no exit codes"
  # CLI11's negated flags printed as "--quiet{false}" (review of 2026-12-06): flags read as typed.
  grep -q '{false}' "$WORK/help" && fail "$cmd --help prints a flag with {false}: $(grep '{false}' "$WORK/help")"
done
echo "ok"
