# Sourced by the CLI tests: $1 = vsa-bench binary, $2 = source dir.
set -uo pipefail
BIN="$1"; SRC="$2"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
# The python with torch and numpy for scripts/peers: $VSA_PYTHON, else the venv that
# scripts/test.sh installs (scripts/lib/common.sh: install_peer_python), else python3.
peer_python() {
  if [ -n "${VSA_PYTHON:-}" ]; then echo "$VSA_PYTHON"
  elif [ -x "$SRC/.tools/torch-venv/bin/python" ]; then echo "$SRC/.tools/torch-venv/bin/python"
  else echo python3; fi
}
