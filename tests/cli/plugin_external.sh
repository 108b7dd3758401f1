# A plugin built outside this repository (e.g. an adapter for FastVideo's kernels, built
# from the user's checkout; docs/plugins.md, "Adapters for other projects' kernels"): given
# as a built library in $VSA_EXTERNAL_PLUGIN, it must load (list), lint without a tool or
# input error, and, with $VSA_EXTERNAL_PLUGIN_SUITE, run that suite to a verdict (no exit 2).
source "$(dirname "$0")/lib.sh"
if [ -z "${VSA_EXTERNAL_PLUGIN:-}" ]; then
  echo "SKIP: no external plugin (set VSA_EXTERNAL_PLUGIN=/path/to/lib.so, and VSA_EXTERNAL_PLUGIN_SUITE to run a suite)"
  exit 77
fi
[ -f "$VSA_EXTERNAL_PLUGIN" ] || fail "VSA_EXTERNAL_PLUGIN=$VSA_EXTERNAL_PLUGIN: no such file"
"$BIN" list backends --plugin "$VSA_EXTERNAL_PLUGIN" --format json >"$WORK/list.json" 2>"$WORK/err" \
  || { cat "$WORK/err"; fail "list --plugin does not load it"; }
json_get "$WORK/list.json" "'\n'.join(b['name'] + ': ' + str([s['reason'] or 'supported' for s in b['support']]) for b in d['backends'] if 'plugin' in b)"
"$BIN" lint --plugin "$VSA_EXTERNAL_PLUGIN" >"$WORK/lint.txt" 2>"$WORK/err"; rc=$?
cat "$WORK/lint.txt"
[ "$rc" -le 1 ] || { cat "$WORK/err"; fail "lint --plugin: exit $rc (a tool or input error)"; }
if [ -n "${VSA_EXTERNAL_PLUGIN_SUITE:-}" ]; then
  "$BIN" run "$VSA_EXTERNAL_PLUGIN_SUITE" --plugin "$VSA_EXTERNAL_PLUGIN" --out "$WORK/out" >"$WORK/run.txt" 2>"$WORK/err"
  rc=$?; cat "$WORK/run.txt"
  [ "$rc" -ne 2 ] || { cat "$WORK/err"; fail "the suite was refused (exit 2)"; }
fi
echo "ok"
