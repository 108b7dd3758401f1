"""Runs FlashInfer's VSA forward (flashinfer_peer) on one dumped case between
cudaProfilerStart/Stop, after two untimed warm-up calls (its JIT build, plan()), so that
`ncu --profile-from-start off` sees only its timed kernels. For scripts/device/fwd_peer_ncu.sh.

    python3 scripts/peers/profile_flashinfer.py DUMP_DIR [--runs N]
"""
from __future__ import annotations

import argparse
import sys

import torch

from case_tensors import case_tensors
from dumped_case import load_dump
from flashinfer_peer import FlashInferVsaPeer


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dump")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    peer = FlashInferVsaPeer()
    device = torch.device("cuda")
    why = peer.load_error or peer.unavailable(device)
    if why:
        print(f"flashinfer-vsa unavailable: {why}", file=sys.stderr)
        return 2
    t = case_tensors(load_dump(args.dump), device)
    why = peer.case_unsupported(t)
    if why:
        print(f"flashinfer-vsa does not take this case: {why}", file=sys.stderr)
        return 2
    peer.prepare(t)
    run = peer.forward_launcher()
    for _ in range(2):
        run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for _ in range(args.runs):
        run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print(f"flashinfer-vsa {peer.version}: {args.runs} profiled forward runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
