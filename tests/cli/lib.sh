# Sourced by the CLI tests: $1 = vsa-bench binary, $2 = source dir.
set -uo pipefail
BIN="$1"; SRC="$2"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# synthetic_timing.py (timings whose figures follow from their pass medians) for the tests' python.
export PYTHONPATH="$SRC/tests/cli${PYTHONPATH:+:$PYTHONPATH}"
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
# wait_for_cases DIR N TRIES: polls each 50 ms until the report a run is rewriting under DIR lists
# N cases; prints its path (as far as it got) and fails (returns 1) if it never did.
wait_for_cases() {
  local r="" n=""
  for _ in $(seq "$3"); do
    r="$(ls "$1"/*.json 2>/dev/null | head -1)"
    n="$([ -n "$r" ] && python3 -c "import json; print(len(json.load(open('$r'))['cases']))" 2>/dev/null)"
    [ "$n" = "$2" ] && { echo "$r"; return 0; }
    sleep 0.05
  done
  echo "$r"; return 1
}
# The python with torch and numpy for scripts/peers: $VSA_PYTHON, else the venv that
# scripts/test.sh installs (scripts/lib/common.sh: install_peer_python), else python3.
peer_python() {
  if [ -n "${VSA_PYTHON:-}" ]; then echo "$VSA_PYTHON"
  elif [ -x "$SRC/.tools/torch-venv/bin/python" ]; then echo "$SRC/.tools/torch-venv/bin/python"
  else echo python3; fi
}
# sanitized: the binary is built with AddressSanitizer (the asan preset). grep without -q
# reads all of nm's output: with pipefail, an early exit of grep -q fails the pipeline (SIGPIPE).
sanitized() { nm -D --undefined-only "$BIN" 2>/dev/null | grep '__asan_init' >/dev/null; }
# need_backend NAME: skip (77) with the reason unless this build has backend NAME (the asan
# preset builds neither the sm_90a nor the sm_100a kernels, nor the model that runs the latter).
need_backend() {
  "$BIN" list backends --json 2>/dev/null \
    | python3 -c "import json, sys; sys.exit(0 if any(b['name'] == sys.argv[1] for b in json.load(sys.stdin)['backends']) else 1)" "$1" \
    || { echo "SKIP: backend $1 is not in this build (VSA_BUILD_SM90A / VSA_BUILD_SM100A off, e.g. the asan preset)"; exit 77; }
}
