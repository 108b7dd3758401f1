#!/usr/bin/env bash
# `list cases SUITE --case TEXT` selects as `run --case` does (the suite-qualified name
# contains TEXT; repeatable), and a filter that keeps nothing is an error naming it.
source "$(dirname "$0")/lib.sh"
"$BIN" list cases correctness --case odd-nb --format json > "$WORK/one.json" || fail "list cases --case: exit $?"
[ "$(json_get "$WORK/one.json" "[c['name'] for c in d['cases']]")" = "['odd-nb']" ] \
  || fail "--case odd-nb: $(json_get "$WORK/one.json" "[c['name'] for c in d['cases']]")"
all="$("$BIN" list cases correctness --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["cases"]))')"
two="$("$BIN" list cases correctness --case correctness/odd --case dense --format json |
  python3 -c 'import json,sys; print(len(json.load(sys.stdin)["cases"]))')"
[ "$two" -lt "$all" ] && [ "$two" -ge 2 ] || fail "two filters kept $two of $all cases"
"$BIN" list cases correctness --case no-such-case > "$WORK/out" 2>&1 && fail "a filter that keeps nothing must fail"
grep -q "no case of correctness matches --case no-such-case" "$WORK/out" || fail "the error does not name the filter: $(cat "$WORK/out")"
"$BIN" list suites --case odd > /dev/null 2>&1 && fail "--case without \`list cases\` must fail"
echo "ok"
