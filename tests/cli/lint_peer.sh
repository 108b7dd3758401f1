#!/usr/bin/env bash
# `vsa-bench lint` on a peer's kernels that are known to run: no findings allowed. A tool
# that flags a working kernel gets ignored (issue 18, finding 3: FastVideo's sm_100a
# forward, which ran on GB200, got 6 false arrive-before-wait findings from the old rule).
#
# VSA_PEER_LINT: one or more files (':'-separated) that the peer's own build produced
# with its own flags: an object, a cubin, or the extension module itself (e.g. FastVideo's
# fastvideo_kernel_ops*.so built with TORCH_CUDA_ARCH_LIST=10.0a). This project builds no
# peer code and keeps no recipe for it (LINT.md, "Peer kernels"). Skips (77) when unset.
# The planted faults must still fire on the same binary: tests/cli/lint.sh and
# tests/unit/lint_fixtures_test.cpp check that in every run.
source "$(dirname "$0")/lib.sh"

if [ -z "${VSA_PEER_LINT:-}" ]; then
  echo "SKIP: VSA_PEER_LINT is not set (a peer binary built by its own build, e.g. FastVideo's sm_100a forward; LINT.md says how)"
  exit 77
fi
IFS=':' read -r -a files <<<"$VSA_PEER_LINT"
for file in "${files[@]}"; do
  [ -f "$file" ] || fail "VSA_PEER_LINT names $file, which is not a file"
  "$BIN" lint --json "$file" >"$WORK/peer.json" 2>"$WORK/stderr"; rc=$?
  if [ "$rc" = 2 ] && grep -qi "cuobjdump" "$WORK/stderr"; then
    echo "SKIP: no cuobjdump here ($(head -1 "$WORK/stderr"))"; exit 77
  fi
  "$BIN" lint "$file" >"$WORK/peer.txt" 2>&1
  head -3 "$WORK/peer.txt"
  [ "$rc" = 0 ] || { cat "$WORK/peer.txt" "$WORK/stderr"; fail "lint of $file exited $rc, expected 0 (no findings)"; }
  sm100a="$(json_get "$WORK/peer.json" "sum(k['arch'] == 'sm_100a' for k in d['kernels'])")"
  [ "$sm100a" -gt 0 ] || fail "$file has no sm_100a kernel image: not the peer's Blackwell build"
  echo "lint_peer: $file: $sm100a sm_100a kernel images, 0 findings"
done
