#!/usr/bin/env python3
"""Times peer block-sparse attention kernels on our cases and writes a report in
our schema (peers-report.json) that `vsa-bench compare` and `vsa-bench fleet` read.

    vsa-bench dump --case perf/topk/S=4096,density=0.25 --out dumps/s4k
    python3 scripts/peers/peers.py dumps/s4k [more dumps] --out peers-report.json
    vsa-bench compare results/<ours>.json peers-report.json

Each case comes from a `vsa-bench dump` directory (inputs, q2k/k2q/vbs, and the CPU
reference's outputs when the dump computed them). Every peer is checked first
(rel_max and rel_l2 per output, docs/spec.md, against the case's tolerances) and timed
only when it passed, with CUDA events as our harness does (warm-up, iterations
queued back to back, passes interleaved A B B A, median of pass medians; TFLOPS from
the case's docs/spec.md FLOP count). Without reference outputs in the dump, the reference
is docs/spec.md in fp32 torch on the same device (torch_reference.py); the report names
which reference each case used. Exit codes: 0 all passed (skips allowed), 1 a check
failed, 2 bad usage or input, 4 a peer raised.
"""
from __future__ import annotations

import argparse
import gc
import json
import pathlib
import sys
import time
import traceback

import torch

import nvml_clocks
import peer_report
from case_tensors import case_tensors, to_tensor
from check import compare
from dumped_case import OUTPUTS, DumpError, load_dump
from fastvideo_peer import FastVideoTritonPeer
from fingerprint import device_info, node_info
from flashinfer_peer import FlashInferVsaPeer
from flex_flash_peer import FlexFlashPeer
from flex_peer import FlexPeer
from measure import time_interleaved
from torch_reference import reference_outputs

PEER_CLASSES = {"flex-attention": FlexPeer, "flex-attention-flash": FlexFlashPeer,
                "flashinfer-vsa": FlashInferVsaPeer, "fastvideo-triton": FastVideoTritonPeer}
PEERS = tuple(PEER_CLASSES)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dumps", nargs="+", help="directories written by `vsa-bench dump`")
    p.add_argument("-o", "--out", default="peers-report.json", help="report path (our JSON schema)")
    p.add_argument("--peers", default=",".join(PEERS), help=f"comma list of {', '.join(PEERS)}")
    p.add_argument("--device", default="auto", help="auto (cuda when present) | cuda | cuda:N | cpu")
    p.add_argument("--label", default="peers", help="report label (fleet and compare legends)")
    p.add_argument("--reference", choices=("auto", "dump", "torch"), default="auto",
                   help="auto: the dump's CPU outputs when present, else torch fp32 on the device")
    p.add_argument("--check-torch-reference", action="store_true",
                   help="also compare the torch fp32 reference against the dump's CPU reference "
                        "(reported as backend torch-fp32-ref): evidence for cases dumped without outputs")
    p.add_argument("--fastvideo-triton", metavar="FILE",
                   help="FastVideo's triton_kernels/block_sparse_attn_triton.py, when fastvideo_kernel is not installed")
    p.add_argument("--no-timing", action="store_true", help="check only")
    p.add_argument("--time-all", action="store_true",
                   help="time every case (default: only perf-mode cases are timed, as in `vsa-bench run`)")
    p.add_argument("--warmup", type=int, help="override the case's timing.warmup")
    p.add_argument("--iterations", type=int, help="override the case's timing.iterations")
    p.add_argument("--passes", type=int, help="override the case's timing.passes")
    p.add_argument("--min-pass-ms", type=float,
                   help="override the case's timing.min_pass_ms: sustained passes of at least this many ms "
                        "(batches of back-to-back launches, as `vsa-bench run` times a case with min_pass_ms)")
    return p.parse_args(argv)


def usage_error(message: str):
    """Bad usage or input: exit 2, as the harness does (1 means a check failed)."""
    print(f"peers.py: {message}", file=sys.stderr)
    raise SystemExit(2)


def make_peers(args):
    wanted = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in PEERS]
    if unknown:
        usage_error(f"unknown peer(s) {', '.join(unknown)} (known: {', '.join(PEERS)})")
    return [FastVideoTritonPeer(args.fastvideo_triton) if name == "fastvideo-triton" else PEER_CLASSES[name]()
            for name in wanted]


def pick_device(text: str) -> torch.device:
    if text == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(text)
    if device.type == "cuda" and not torch.cuda.is_available():
        usage_error("--device cuda but torch sees no CUDA device")
    return device


def check_peer(peer, t, ref, tol, backward):
    """(verdict, reason, metrics, backward_checked). A peer whose forward returns no lse
    (lse None) is checked on O alone and the reason says so; a peer with no backward here
    (backward_unavailable), or whose backward refuses the case (backward_refused), is checked
    and timed forward only."""
    metrics, notes = [], []
    o, lse = peer.forward()
    if getattr(peer, "forward_note", None):  # what the peer did to its outputs before the check
        notes.append(peer.forward_note)
    metrics.append(compare("o", o, ref["o"], *tol))
    if lse is None:
        notes.append(getattr(peer, "lse_unavailable", "lse not returned"))
    else:
        metrics.append(compare("lse", lse, ref["lse"], *tol))
    no_backward = backward and getattr(peer, "backward_unavailable", lambda d: None)(t.q.device)
    if no_backward:
        notes.append(no_backward)
    if backward and not no_backward:
        try:
            grads = peer.backward()
        except Exception as e:
            # A peer may name errors that mean "this backward does not take the case" (a
            # configuration it refuses, not a crash): then its forward stands, checked and
            # timed, and the reason carries the peer's own words. Anything else is a FAULT.
            no_backward = getattr(peer, "backward_refused", lambda e: None)(e)
            if not no_backward:
                raise
            notes.append(no_backward)
        else:
            for name, got in zip(("dq", "dk", "dv"), grads):
                metrics.append(compare(name, got, ref[name], *tol))
    failed = [m for m in metrics if not m["pass"]]
    backward_checked = backward and not no_backward
    if failed:
        return "FAIL", f"{failed[0]['tensor']}: {failed[0]['why']}", metrics, backward_checked
    return "PASS", "; ".join(notes), metrics, backward_checked


def add_note(result: dict, note: str) -> None:
    result["reason"] = "; ".join(x for x in (result["reason"], note) if x)


def pick_reference(case, t, args, backward, tol):
    """(reference outputs, the report's name for them, extra backend results)."""
    needed = OUTPUTS if backward else ("o", "lse")
    use_dump = args.reference in ("auto", "dump") and all(case.has_reference(x) for x in needed)
    if args.reference == "dump" and not use_dump:
        raise DumpError(f"{case.path}: --reference dump, but the dump has no reference outputs "
                        "(dumped with --no-reference)")
    torch_ref = reference_outputs(t, backward) if not use_dump or args.check_torch_reference else None
    if not use_dump:
        return torch_ref, f"torch-fp32 (docs/spec.md on {t.q.device.type}, scripts/peers/torch_reference.py)", []
    ref = {name: to_tensor(case.arrays[name], t.q.device) for name in needed}
    extra = []
    if torch_ref is not None:
        metrics = [compare(n, torch_ref[n], ref[n], *tol) for n in needed]
        failed = [m for m in metrics if not m["pass"]]
        extra.append(peer_report.backend_result(
            "torch-fp32-ref", "FAIL" if failed else "PASS",
            f"the reference used for cases dumped without outputs, checked here against {case.reference_backend}" +
            (f"; {failed[0]['tensor']}: {failed[0]['why']}" if failed else ""), metrics))
    return ref, f"{case.reference_backend} (vsa-bench dump)", extra


def run_case(path, peers, device, args):
    t0 = time.monotonic()
    case = load_dump(path)
    t = case_tensors(case, device)
    backward = case.runs_backward
    tol = (case.spec["tolerance"]["rel_max"], case.spec["tolerance"]["rel_l2"])
    ref, reference, results = pick_reference(case, t, args, backward, tol)
    passed = []  # (peer, its result, whether its backward was checked and so is timed)
    for peer in peers:
        # unavailable: the peer cannot run here at all; case_unsupported: not this case's shape
        reason = peer.unavailable(device) or getattr(peer, "case_unsupported", lambda t: None)(t)
        if reason:
            results.append(peer_report.backend_result(peer.name, "SKIP", reason))
            continue
        try:
            peer.prepare(t)
            verdict, why, metrics, backward_checked = check_peer(peer, t, ref, tol, backward)
            results.append(peer_report.backend_result(peer.name, verdict, why, metrics))
            if verdict == "PASS":
                passed.append((peer, results[-1], backward_checked))
        except Exception as e:  # a peer that raises is a FAULT of that peer, the run goes on
            traceback.print_exc()
            results.append(peer_report.backend_result(peer.name, "FAULT", f"{type(e).__name__}: {e}"))
    if args.no_timing:
        for _, r, _ in passed:
            add_note(r, "not timed (--no-timing)")
    elif device.type != "cuda":
        for _, r, _ in passed:
            add_note(r, "not timed: no CUDA device (timing uses CUDA events)")
    elif passed and (case.spec.get("mode") == "perf" or args.time_all):
        time_case(case, passed, backward, args)
    for peer in peers:
        if hasattr(peer, "release"):
            peer.release()
    del t, ref
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return peer_report.case_result(case, [p.name for p in peers], reference, "", results, time.monotonic() - t0)


def time_case(case, passed, backward, args):
    timing = case.spec["timing"]
    warmup = args.warmup if args.warmup is not None else timing["warmup"]
    iterations = args.iterations if args.iterations is not None else timing["iterations"]
    passes = args.passes if args.passes is not None else timing["passes"]
    min_pass_ms = args.min_pass_ms if args.min_pass_ms is not None else timing.get("min_pass_ms", 0.0)
    ops = [("fwd", "forward_launcher", case.meta["flops_fwd"], passed)]
    if backward:  # only the peers whose backward was checked
        ops.append(("bwd", "backward_launcher", case.meta["flops_bwd"], [p for p in passed if p[2]]))
    for op, launcher, flops, timed in ops:
        if not timed:
            continue
        try:
            launchers = {peer.name: getattr(peer, launcher)() for peer, _, _ in timed}
            sampler = nvml_clocks.sampler_for(torch.cuda.current_device()) if torch.cuda.is_available() else None
            measured = time_interleaved(launchers, warmup, iterations, passes, min_pass_ms, sampler)
        except Exception as e:  # as in our runner: every backend timed together is marked
            traceback.print_exc()
            for _, result, _ in timed:
                result["verdict"] = "FAULT"
                result["reason"] = f"during {op} timing: {type(e).__name__}: {e}"
            return
        for peer, result, _ in timed:
            result["timings"].append(peer_report.timing_entry(op, measured[peer.name], flops))


def main(argv=None) -> int:
    argv = list(argv if argv is not None else sys.argv[1:])
    args = parse_args(argv)
    if args.min_pass_ms is not None and not args.min_pass_ms >= 0:
        usage_error(f"--min-pass-ms must be 0 (bursts) or more (sustained passes), not {args.min_pass_ms}")
    device = pick_device(args.device)
    peers = make_peers(args)
    started = peer_report.utc_now()
    try:
        first = json.loads((pathlib.Path(args.dumps[0]) / "case.json").read_text())
    except (OSError, json.JSONDecodeError) as e:
        print(f"peers.py: {args.dumps[0]}: not a vsa-bench dump ({e})", file=sys.stderr)
        return 2
    tool = {"name": "vsa-bench peers (scripts/peers/peers.py)", "version": first["tool"]["version"],
            "git_sha": first["tool"]["git_sha"], "build_type": "python", "cxx_compiler": "",
            "cuda_compiler": "", "cuda_toolkit": torch.version.cuda or ""}
    fixed = dict(argv=["peers.py"] + argv, label=args.label, started_at=started, node=node_info(args.label),
                 device=device_info(device), dumps=args.dumps, tool=tool,
                 devices_note=None if device.type == "cuda" else "no CUDA device: peers checked on the CPU, not timed",
                 backends=[{"name": p.name, "description": p.description, "images": [], "probes": []} for p in peers])
    cases = []
    for path in args.dumps:
        try:
            cases.append(run_case(path, peers, device, args))
        except DumpError as e:
            print(f"peers.py: {e}", file=sys.stderr)
            return 2
        except Exception:  # outside the peers (inputs, reference): the run is incomplete, not failed
            traceback.print_exc()
            print(f"peers.py: {path}: could not prepare the case; the report keeps the cases before it",
                  file=sys.stderr)
            return 4
        c = cases[-1]
        print(f"[{len(cases)}/{len(args.dumps)}] {c['name']}: {c['verdict']} ({c['seconds']:.1f} s)", file=sys.stderr)
        # Rewritten after every case, as our runs do: an interrupted run keeps what finished.
        doc = peer_report.report(cases=cases, complete=len(cases) == len(args.dumps), **fixed)
        peer_report.write_atomic(args.out, doc)
    print(peer_report.table(cases), end="")
    print(f"wrote {args.out}")
    return doc["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
