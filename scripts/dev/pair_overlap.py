#!/usr/bin/env python3
"""How many K/V block loads would a forward save by giving one CTA two query blocks of a
head and loading the union of their kv lists once? Reads the index lists of a case written
by `vsa-bench dump` (q2k_idx.npy, q2k_num.npy, case.json) and counts the kv blocks loaded
per call for: no pairing (ours today: one load per (q block, kv block) pair), neighbouring
query blocks, each block paired with the best-overlapping of the next 16 unpaired ones (the
rule FlashInfer's SM90 VSA planner uses, kernels/sm90a/notes/runs.md run 32b), and the best of
all. Host-side counting only; no kernel runs.

    python3 scripts/dev/pair_overlap.py DUMP_DIR [DUMP_DIR ...]     (needs numpy)
"""
import json
import pathlib
import sys

import numpy as np


def pair_loads(sets, rows_per_head, heads, window):
    loads = 0
    for h in range(heads):
        free = list(range(rows_per_head))
        while free:
            i = free.pop(0)
            a = sets[h * rows_per_head + i]
            if not free:
                loads += len(a)
                break
            j = max(free[:window], key=lambda j: len(a & sets[h * rows_per_head + j]))
            free.remove(j)
            loads += len(a | sets[h * rows_per_head + j])
    return loads


def main(dirs):
    if not dirs:
        print(__doc__)
        return 2
    for d in map(pathlib.Path, dirs):
        if not (d / "q2k_idx.npy").exists():
            print(f"pair_overlap: {d} has no q2k_idx.npy (a `vsa-bench dump` directory?)", file=sys.stderr)
            return 2
        spec = json.loads((d / "case.json").read_text())
        shape = spec.get("shape", spec)
        idx = np.load(d / "q2k_idx.npy")
        num = np.load(d / "q2k_num.npy").reshape(-1)
        idx = idx.reshape(num.shape[0], -1)
        nb = idx.shape[0] // (int(shape.get("B", 1)) * int(shape.get("H", 1)))
        heads = idx.shape[0] // nb
        sets = [set(idx[r, :num[r]].tolist()) for r in range(idx.shape[0])]
        total = sum(len(s) for s in sets)
        tile_bytes = 2 * 64 * int(shape.get("D", 128)) * 2  # K and V of one 64-token block, bf16
        print(f"{d}: {heads} head rows x {nb} query blocks, {total} (q, kv) pairs")
        rows = [("no pairing", total), ("neighbours", pair_loads(sets, nb, heads, 1)),
                ("best of next 16", pair_loads(sets, nb, heads, 16)), ("best of all", pair_loads(sets, nb, heads, nb))]
        for name, loads in rows:
            print(f"  {name:16s} kv blocks loaded {loads:8d}  saving {100 * (1 - loads / total):5.1f}%  "
                  f"K+V {loads * tile_bytes / 1e9:.2f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
