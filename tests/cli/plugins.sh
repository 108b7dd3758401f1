# Plugins (docs/plugins.md): the example CPU plugin runs a correctness case against cpu-ref
# (from --plugin and from a suite's "plugins"), the report records what ran (path, size,
# SHA-256, ABI, build info), compare / fleet / repro see it; every bad library is exit 2
# with the reason before anything runs; a plugin that aborts or hangs is FAULT / HANG for
# its cases alone; --probe delays reach a plugin (and the probe.cuh macro honours them).
source "$(dirname "$0")/lib.sh"
BIN="$(readlink -f "$BIN")"
PLUGINS="$(dirname "$BIN")/plugins"
CPU="$PLUGINS/vsa_example_cpu.so"
T="$PLUGINS/test"
for f in "$CPU" "$PLUGINS/vsa_example_cuda.so" "$T"/vsa_test_plugin_{no_entry,wrong_abi,duplicate_name,builtin_clash,load_abort,misbehaving,unresolved,lint_spill}.so; do
  [ -f "$f" ] || fail "$f was not built (the build makes every plugin: examples/plugins, tests/plugins)"
done
PY="${VSA_TOOLS_PYTHON:-python3}"
expect_rc() { [ "$rc" -eq "$1" ] || { cat "$WORK/out" "$WORK/err" 2>/dev/null; fail "$2: exit $rc, expected $1"; }; }
no_reports() { ! ls "$1"/*.json >/dev/null 2>&1 || fail "$2: a report was written, so something ran"; }

cat >"$WORK/correct.json" <<'JSON'
{"name": "plug", "defaults": {"B": 1, "H": 2, "op": "fwd", "backends": ["example-cpu"], "reference": "cpu-ref"},
 "cases": [
   {"name": "topk-d64", "D": 64, "S": 256, "pattern": {"kind": "topk", "density": 0.5}},
   {"name": "ragged-d128", "D": 128, "S": 192, "pattern": {"kind": "ragged", "density": 0.6}, "vbs": {"kind": "explicit", "values": [64, 64, 17]}},
   {"name": "empty-row", "D": 32, "S": 128, "H": 1, "pattern": {"kind": "explicit", "rows": [[1], []]}}
 ]}
JSON

# --- list: the plugin's backend beside the built-in ones.
"$BIN" list backends --plugin "$CPU" --format json >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 0 "list --plugin"
[ "$(json_get "$WORK/out" "[b['memory'] for b in d['backends'] if b['name']=='example-cpu']")" = "['host']" ] \
  || fail "list --plugin does not show example-cpu as a host backend"
[ "$(json_get "$WORK/out" "[b.get('plugin') for b in d['backends'] if b['name']=='example-cpu']")" = "['$(readlink -f "$CPU")']" ] \
  || fail "list --plugin does not name the library"
"$BIN" list backends --plugin "$CPU" >"$WORK/out" 2>&1 || fail "list --plugin (text)"
grep -q "example-cpu" "$WORK/out" || fail "list text lacks example-cpu"

# --- a correctness run against cpu-ref, the report knows the library.
"$BIN" run "$WORK/correct.json" --plugin "$CPU" --devices none --out "$WORK/a" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 0 "run --plugin (correctness against cpu-ref)"
A="$(ls "$WORK"/a/*.json)"
[ "$(json_get "$A" "[c['verdict'] for c in d['cases']]")" = "['PASS', 'PASS', 'PASS']" ] || fail "example-cpu did not PASS"
[ "$(json_get "$A" "all(any(b['backend']=='example-cpu' and b['verdict']=='PASS' for b in c['backends']) for c in d['cases'])")" = "True" ] \
  || fail "example-cpu did not PASS in every case"
# --- a backend with its own lse form (natural log, declared as lse_factor, plugin ABI 2):
# vsa-bench converts after the call, so the same cases pass against cpu-ref, lse included.
sed 's/"backends": \["example-cpu"\]/"backends": ["example-cpu-ln"]/' "$WORK/correct.json" >"$WORK/correct-ln.json"
"$BIN" run "$WORK/correct-ln.json" --plugin "$CPU" --devices none --out "$WORK/ln" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 0 "run --plugin, example-cpu-ln"
LN="$(ls "$WORK"/ln/*.json)"
[ "$(json_get "$LN" "[[m['pass'] for b in c['backends'] if b['backend']=='example-cpu-ln' for m in b['metrics'] if m['tensor']=='lse'] for c in d['cases']]")" = "[[True], [True], [True]]" ] \
  || fail "example-cpu-ln's natural-log lse did not pass after the declared conversion"
[ "$(json_get "$LN" "sorted({round(b['lse_factor'], 6) for c in d['cases'] for b in c['backends'] if b['backend']=='example-cpu-ln'})")" = "[0.693147]" ] \
  || fail "the report does not record example-cpu-ln's lse factor"
"$PY" "$SRC/scripts/check_schema.py" "$LN" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "report with lse_factor off schema"; }
real="$(readlink -f "$CPU")"
[ "$(json_get "$A" "d['plugins'][0]['path']")" = "$real" ] || fail "report plugin path"
[ "$(json_get "$A" "d['plugins'][0]['size']")" = "$(stat -c %s "$real")" ] || fail "report plugin size"
[ "$(json_get "$A" "d['plugins'][0]['sha256']")" = "$(sha256sum "$real" | cut -d' ' -f1)" ] || fail "report plugin sha256"
[ "$(json_get "$A" "d['plugins'][0]['abi_version']")" = "2" ] || fail "report plugin ABI version"
[ "$(json_get "$A" "d['plugins'][0]['build_info']['example']")" = "cpu_forward.cpp" ] || fail "report build info"
[ "$(json_get "$A" "[b.get('plugin') for b in d['backends'] if b['name']=='example-cpu']")" = "['$real']" ] \
  || fail "the report's backend list does not name the plugin"
grep -q "plugin example-cpu: $real" "${A%.json}.md" || fail "Markdown report lacks the plugin line"
"$PY" "$SRC/scripts/check_schema.py" "$A" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "report with plugins off schema"; }

# In this process (--no-isolate: the in-process registry loads the plugin too).
"$BIN" run "$WORK/correct.json" --plugin "$CPU" --devices none --no-isolate --case topk --out "$WORK/ni" \
  >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 0 "run --no-isolate --plugin"

# --- a suite's "plugins", relative to the suite file, from another directory.
mkdir -p "$WORK/kit"; cp "$CPU" "$WORK/kit/mine.so"
"$PY" - "$WORK/correct.json" "$WORK/kit/suite.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1])); s["plugins"] = ["mine.so"]; json.dump(s, open(sys.argv[2], "w"))
EOF
(cd / && "$BIN" run "$WORK/kit/suite.json" --devices none --out "$WORK/b" >"$WORK/out" 2>"$WORK/err"); rc=$?
expect_rc 0 "suite field plugins"
B="$(ls "$WORK"/b/*.json)"
[ "$(json_get "$B" "d['plugins'][0]['path']")" = "$WORK/kit/mine.so" ] || fail "suite plugin not resolved next to the suite"
"$PY" "$SRC/scripts/check_schema.py" --schema suite "$WORK/kit/suite.json" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "suite with plugins off schema"; }
echo '{"plugins": "mine.so", "cases": [{"name": "x", "backends": ["cpu-ref"]}]}' >"$WORK/kit/bad.json"
"$BIN" run "$WORK/kit/bad.json" --devices none --out "$WORK/bad" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "suite plugins of the wrong type"
grep -q '\$.plugins: must be an array' "$WORK/err" || fail "plugins type error does not name the field"
echo '{"plugins": [""], "cases": [{"name": "x", "backends": ["cpu-ref"]}]}' >"$WORK/kit/bad.json"
"$BIN" run "$WORK/kit/bad.json" --devices none --out "$WORK/bad" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "an empty plugin path"
grep -q '\$.plugins\[0\]: must be a non-empty path' "$WORK/err" || fail "empty plugin path not named"

# --- every bad library: exit 2 with the reason, nothing run (on run; list, lint, repro too).
bad() {  # bad NAME EXPECTED-TEXT PLUGIN...
  local name="$1" text="$2"; shift 2
  local args=(); for p in "$@"; do args+=(--plugin "$p"); done
  "$BIN" run "$WORK/correct.json" "${args[@]}" --devices none --out "$WORK/bad-$name" >"$WORK/out" 2>"$WORK/err"; rc=$?
  expect_rc 2 "run with $name"
  grep -qF -- "$text" "$WORK/err" || { cat "$WORK/err"; fail "$name: the message lacks \"$text\""; }
  no_reports "$WORK/bad-$name" "$name"
}
echo "not an ELF file" >"$WORK/text.so"
bad missing-file "/nonexistent/x.so: no such file" /nonexistent/x.so
bad not-a-library "cannot be loaded" "$WORK/text.so"
bad unresolved "vsa_test_symbol_nobody_defines" "$T/vsa_test_plugin_unresolved.so"
bad no-entry "no symbol vsa_plugin_entry" "$T/vsa_test_plugin_no_entry.so"
bad wrong-abi "built against plugin ABI version 3, this vsa-bench loads version 2" "$T/vsa_test_plugin_wrong_abi.so"
bad duplicate "duplicate backend name \"example-cpu\" (already declared by plugin $real)" "$CPU" \
  "$T/vsa_test_plugin_duplicate_name.so"
bad builtin-clash "backend \"cpu-ref\" has the name of a built-in backend" "$T/vsa_test_plugin_builtin_clash.so"
bad load-abort "signal 6" "$T/vsa_test_plugin_load_abort.so"
grep -qF "loading plugin $(readlink -f "$T/vsa_test_plugin_load_abort.so")" "$WORK/err" \
  || fail "a load that kills the worker does not name the library"
"$BIN" list backends --plugin "$T/vsa_test_plugin_wrong_abi.so" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "list with a wrong-ABI plugin"; grep -q "ABI version 3" "$WORK/err" || fail "list: no ABI reason"
"$BIN" lint --plugin "$T/vsa_test_plugin_no_entry.so" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "lint with a plugin without entry point"; grep -q "no symbol vsa_plugin_entry" "$WORK/err" || fail "lint: no reason"
"$BIN" repro "$A" --case topk --plugin "$T/vsa_test_plugin_builtin_clash.so" --devices none --out "$WORK/bad-repro" \
  >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "repro with a clashing plugin"; grep -q "built-in backend" "$WORK/err" || fail "repro: no reason"

# A backend no plugin has is still a typo, and a plugin's shape refusal is exit 2 up front.
"$BIN" run "$WORK/correct.json" --devices none --out "$WORK/bad-typo" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "a plugin backend without its plugin"; grep -q 'unknown backend "example-cpu"' "$WORK/err" || fail "typo reason"
cat >"$WORK/shape.json" <<'JSON'
{"cases": [{"name": "d32", "B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "backends": ["test-d64-only"]}]}
JSON
"$BIN" run "$WORK/shape.json" --plugin "$T/vsa_test_plugin_misbehaving.so" --devices none --out "$WORK/bad-shape" \
  >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "a shape the plugin refuses"; grep -q "needs D = 64, got 32" "$WORK/err" || fail "shape refusal reason"
no_reports "$WORK/bad-shape" "shape refusal"

# --- a plugin that aborts, hangs or returns an error: FAULT / HANG / FAULT (with its text) for its cases alone.
cat >"$WORK/faults.json" <<'JSON'
{"defaults": {"B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "reference": "cpu-ref"},
 "cases": [
   {"name": "abort", "backends": ["test-abort", "example-cpu"]},
   {"name": "hang", "backends": ["test-hang"], "timeout_s": 3},
   {"name": "error", "backends": ["test-error"]},
   {"name": "after", "backends": ["example-cpu"]}
 ]}
JSON
"$BIN" run "$WORK/faults.json" --plugin "$CPU" --plugin "$T/vsa_test_plugin_misbehaving.so" --devices none \
  --out "$WORK/f" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 4 "misbehaving plugin run"
F="$(ls "$WORK"/f/*.json)"
[ "$(json_get "$F" "[c['verdict'] for c in d['cases']]")" = "['FAULT', 'HANG', 'FAULT', 'PASS']" ] \
  || fail "verdicts $(json_get "$F" "[c['verdict'] for c in d['cases']]")"
json_get "$F" "[b['reason'] for b in d['cases'][0]['backends'] if b['backend']=='test-abort'][0]" | grep "signal 6" >/dev/null \
  || fail "abort FAULT does not name the signal"
[ "$(json_get "$F" "[b['verdict'] for b in d['cases'][0]['backends'] if b['backend']=='example-cpu'][0]")" = "PASS" ] \
  || fail "the faulting case's other plugin backend was not re-run"
json_get "$F" "d['cases'][2]['backends']" | grep "planted plugin error: illegal tile 42" >/dev/null || fail "plugin error text lost"
[ "$(json_get "$F" "len(d['plugins'])")" = "2" ] || fail "both plugins recorded"

# --- probe delays reach the plugin (slots by name, warp masks), and VSA_PROBE sleeps them.
cat >"$WORK/echo.json" <<'JSON'
{"cases": [{"name": "echo", "B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "backends": ["test-probe-echo"],
            "reference": "none"}]}
JSON
"$BIN" run "$WORK/echo.json" --plugin "$T/vsa_test_plugin_misbehaving.so" --probe echo.second=777 \
  --probe "echo.first=1234@warps:4-7" --devices none --out "$WORK/e" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 4 "probe echo (a FAULT carrying the delays)"
json_get "$(ls "$WORK"/e/*.json)" "d['cases'][0]['backends']" | grep "probe slot 0: 1234 ns, warps 0xf0; slot 1: 777 ns" >/dev/null \
  || { json_get "$(ls "$WORK"/e/*.json)" "d['cases'][0]['backends']"; fail "probe delays did not reach the plugin"; }
"$BIN" run "$WORK/echo.json" --plugin "$T/vsa_test_plugin_misbehaving.so" --probe echo.third=1 --devices none \
  --out "$WORK/e2" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "a probe the plugin does not have"; grep -q "known: echo.first, echo.second" "$WORK/err" || fail "probe list"
# 128 rows x 20 ms at fwd.before_store: the forward takes >= 2.56 s longer than without.
"$BIN" run "$WORK/correct.json" --plugin "$CPU" --case empty-row --devices none --out "$WORK/p0" >/dev/null 2>&1 \
  || fail "plain empty-row run"
"$BIN" run "$WORK/correct.json" --plugin "$CPU" --case empty-row --probe fwd.before_store=20000000 --devices none \
  --out "$WORK/p1" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 0 "probe run of example-cpu"
s0="$(json_get "$(ls "$WORK"/p0/*.json)" "d['cases'][0]['seconds']")"
s1="$(json_get "$(ls "$WORK"/p1/*.json)" "d['cases'][0]['seconds']")"
python3 -c "import sys; sys.exit(0 if float('$s1') - float('$s0') >= 2.5 else 1)" \
  || fail "VSA_PROBE did not delay the plugin (plain ${s0}s, probed ${s1}s)"

# --- sanitize --plugin: the run under the tool (a stand-in that runs what it wraps) loads it.
cat >"$WORK/compute-sanitizer" <<'SH'
#!/bin/bash
log=""
while [ $# -gt 0 ]; do
  case "$1" in --tool|--error-exitcode) shift 2 ;; --log-file) log="$2"; shift 2 ;; *) break ;; esac
done
"$@"; rc=$?
printf '========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n' >"$log"
exit $rc
SH
chmod +x "$WORK/compute-sanitizer"
"$BIN" sanitize --tool memcheck "$WORK/correct.json" --case topk --plugin "$CPU" --devices none --out "$WORK/s" \
  --compute-sanitizer "$WORK/compute-sanitizer" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 0 "sanitize --plugin"
S="$(ls "$WORK"/s/*.json)"
[ "$(json_get "$S" "[b['verdict'] for b in d['cases'][0]['backends'] if b['backend']=='example-cpu']")" = "['PASS']" ] \
  || fail "sanitize did not run the plugin's backend"
[ "$(json_get "$S" "d['plugins'][0]['path']")" = "$real" ] || fail "the sanitized run's report lacks the plugin"

# --- repro: the bundle records the plugins and runs them again; a changed library is said.
"$BIN" repro "$A" --case topk --bundle "$WORK/bundle.json" >"$WORK/out" 2>"$WORK/err" || fail "repro --bundle"
[ "$(json_get "$WORK/bundle.json" "d['plugins']")" = "['$real']" ] || fail "bundle plugins"
[ "$(json_get "$WORK/bundle.json" "d['origin']['plugins'][0]['sha256']")" = "$(sha256sum "$real" | cut -d' ' -f1)" ] \
  || fail "bundle origin lacks the plugin's sha256"
"$BIN" run "$WORK/bundle.json" --devices none --out "$WORK/r" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 0 "run of the bundle (its plugins load again)"
printf 'x' >>"$WORK/kit/mine.so"   # trailing bytes: still loads, another file
"$BIN" repro "$B" --case topk --devices none --out "$WORK/r2" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 0 "repro with a changed library"
grep -q "is not the library the report recorded" "$WORK/out" || fail "repro did not say the library changed"

# --- compare marks the other build, fleet groups by it.
(cd / && "$BIN" run "$WORK/kit/suite.json" --devices none --label rack2 --out "$WORK/c" >/dev/null 2>&1) \
  || fail "run with the changed library"
C="$(ls "$WORK"/c/*.json)"
"$BIN" compare "$B" "$C" --format json >"$WORK/out" 2>"$WORK/err" || true
[ "$(json_get "$WORK/out" "'plugin example-cpu sha256' in d['config_differences']")" = "True" ] \
  || { json_get "$WORK/out" "d['config_differences']"; fail "compare does not mark the plugin's sha256"; }
"$BIN" compare "$B" "$C" >"$WORK/out" 2>"$WORK/err" || true
grep -q "| ≠ | plugin example-cpu sha256 |" "$WORK/out" || fail "compare Markdown lacks the ≠ plugin row"
mkdir -p "$WORK/fleet"; cp "$B" "$C" "$WORK/fleet/"
"$BIN" fleet "$WORK/fleet" --format json >"$WORK/out" 2>"$WORK/err" || true
[ "$(json_get "$WORK/out" "len(d['configurations']['groups'])")" = "2" ] || fail "fleet did not split the plugin builds"
json_get "$WORK/out" "[n['plugins'] for n in d['nodes']]" | grep "example-cpu sha256:" >/dev/null || fail "fleet node plugins"
"$PY" "$SRC/scripts/check_schema.py" "$WORK/out" >"$WORK/schema" 2>&1 || { cat "$WORK/schema"; fail "fleet JSON off schema"; }

# --- lint: the CUDA example is clean under its declared hot family; a spilling plugin gets a
# local-spill warning (someone else's kernel: exit 0), which fails only under --strict.
# The binary finds cuobjdump itself ($VSA_CUOBJDUMP, PATH, the CUDA folders, the checkout's
# .tools/venv): its own answer decides, not a guess from this script's environment.
"$BIN" lint --plugin "$PLUGINS/vsa_example_cuda.so" --format json >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ "$rc" = 2 ] && grep -qi "cuobjdump" "$WORK/err"; then
  cat "$WORK/err"; fail "no cuobjdump (scripts/test.sh installs it; or set VSA_CUOBJDUMP)"
else
  expect_rc 0 "lint --plugin example-cuda"
  [ "$(json_get "$WORK/out" "sorted({k['family'] for k in d['plugins'][0]['kernels']})")" = "['example_cuda']" ] \
    || fail "lint did not apply the plugin's family"
  "$BIN" lint --plugin "$T/vsa_test_plugin_lint_spill.so" >"$WORK/out" 2>"$WORK/err"; rc=$?
  expect_rc 0 "lint --plugin on a spilling plugin (a warning)"
  grep -q "local-spill (warning)" "$WORK/out" || { cat "$WORK/out"; fail "the plugin's spill was not listed as a warning"; }
  "$BIN" lint --plugin "$T/vsa_test_plugin_lint_spill.so" --strict >"$WORK/out" 2>"$WORK/err"; rc=$?
  expect_rc 1 "lint --plugin --strict on a spilling plugin"
  "$BIN" lint --plugin "$T/vsa_test_plugin_lint_spill.so" --format json >"$WORK/out" 2>"$WORK/err"
  [ "$(json_get "$WORK/out" "[(f['rule'], f['severity']) for f in d['plugins'][0]['findings']]")" = \
    "[('local-spill', 'warning')]" ] || { cat "$WORK/out"; fail "lint --plugin JSON: the spill's severity"; }
fi
# A suite (a bundle from another node, say) naming a plugin that is not here: exit 2, naming the
# suite file and its entry.
printf '{"plugins": ["/nonexistent/vsa_plugin.so"], "cases": [{"name": "a", "S": 128, "backends": ["cpu-ref"]}]}' \
  >"$WORK/moved.json"
"$BIN" run "$WORK/moved.json" --devices none --quiet --out "$WORK/moved" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/out"; fail "a suite's missing plugin: exit $rc, expected 2"; }
grep -qF "$WORK/moved.json: \$.plugins[0]: no such file /nonexistent/vsa_plugin.so" "$WORK/out" \
  || { cat "$WORK/out"; fail "a suite's missing plugin is not named by file and entry"; }
grep -qF -- "--plugin PATH/vsa_plugin.so" "$WORK/out" || { cat "$WORK/out"; fail "the missing plugin's error does not teach --plugin"; }
# ... and --plugin with a library of the same file name stands in for it, said on stderr; one of
# another name does not.
printf '{"plugins": ["/other/node/vsa_example_cpu.so"], "cases": [{"name": "a", "S": 128, "op": "fwd", "backends": ["example-cpu"], "reference": "cpu-ref"}]}' \
  >"$WORK/moved.json"
"$BIN" run "$WORK/moved.json" --plugin "$CPU" --devices none --quiet --out "$WORK/moved" >"$WORK/out" 2>&1; rc=$?
expect_rc 0 "a bundle's plugin from another node, with --plugin of the same file name"
grep -qF "\$.plugins[0]: /other/node/vsa_example_cpu.so is not here; --plugin $CPU (the same file name) stands in for it" "$WORK/out" \
  || { cat "$WORK/out"; fail "the stand-in plugin is not said"; }
[ "$(json_get "$(ls "$WORK"/moved/*.json | head -1)" "[c['backends'][0]['verdict'] for c in d['cases']]")" = "['PASS']" ] \
  || fail "the stand-in plugin's backend did not run"
"$BIN" run "$WORK/moved.json" --plugin "$PLUGINS/vsa_example_cuda.so" --devices none --quiet --out "$WORK/moved2" >"$WORK/out" 2>&1; rc=$?
expect_rc 2 "a bundle's missing plugin with --plugin of another file name"
echo "ok"
