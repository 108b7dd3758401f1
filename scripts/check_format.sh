#!/usr/bin/env bash
# Checks every tracked C++/CUDA file against .clang-format (clang-format from Debian 12,
# version 14). Prints each file that differs with the first lines of its diff, then a
# count; exit 0 all formatted, 1 some are not, 2 no clang-format.
# Usage: scripts/check_format.sh [--fix] [FILE ...]   (default: every tracked .cpp .hpp .cu .cuh .h)
#   --fix   rewrite the files in place instead of checking them
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
FIX=0
if [ "${1:-}" = "--fix" ]; then FIX=1; shift; fi
TOOL="${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}"
[ -n "$TOOL" ] || { echo "check_format: no clang-format (apt-get install clang-format)" >&2; exit 2; }
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h'); fi
if [ $FIX = 1 ]; then "$TOOL" -i --style=file "${files[@]}"; exit $?; fi
bad=0
for f in "${files[@]}"; do
  if ! out="$("$TOOL" --style=file "$f" | diff -u --label "$f" --label "$f (clang-format)" "$f" -)"; then
    bad=$((bad + 1))
    echo "$out" | head -n 12
  fi
done
if [ $bad -gt 0 ]; then
  echo "check_format: $bad of ${#files[@]} files differ from .clang-format ($("$TOOL" --version | head -n1)); fix: scripts/check_format.sh --fix" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted ($("$TOOL" --version | head -n1))"
