# Sourced by the CLI tests: $1 = vsa-bench binary, $2 = source dir.
set -uo pipefail
BIN="$1"; SRC="$2"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
