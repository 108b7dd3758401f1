#!/usr/bin/env bash
# `vsa-bench info` prints the build line, the node block, then one block per GPU
# or "no GPU found" with the notes saying why; exit 0 either way.
# Usage: info_text.sh <vsa-bench> <source dir>
set -euo pipefail
bin="$1"
out="$("$bin" info)"
printf '%s\n' "$out"
grep -q '^vsa-bench ' <<<"$out" || { echo "FAIL: no build line"; exit 1; }
grep -q '^node$' <<<"$out" || { echo "FAIL: no node block"; exit 1; }
grep -qE '^  hostname +[^ ]' <<<"$out" || { echo "FAIL: no hostname"; exit 1; }
if grep -q '^no GPU found$' <<<"$out"; then
  grep -q '^notes$' <<<"$out" || { echo "FAIL: no GPU and no note saying why"; exit 1; }
else
  grep -qE '^gpu 0  ' <<<"$out" || { echo "FAIL: neither a GPU block nor 'no GPU found'"; exit 1; }
  grep -qE '^  vbios +' <<<"$out" || { echo "FAIL: GPU block without vbios line"; exit 1; }
fi
echo "info text: ok"
