"""Output comparison as docs/spec.md defines it, in the report's TensorMetrics form.

Mirrors app/model/metrics.cpp: NaN in `got` is counted and skipped; an infinity
on either side must match exactly (-inf lse of empty rows) and is then skipped;
rel_max = max|got - ref| / max|ref|, rel_l2 = ||got - ref|| / ||ref||. Peers write
fresh tensors (nothing is poisoned), so "unwritten" is always 0 here.
"""
from __future__ import annotations

import math

import torch


def compare(tensor: str, got: torch.Tensor, ref: torch.Tensor, rel_max_tol: float, rel_l2_tol: float) -> dict:
    g = got.detach().to(torch.float64).flatten()
    r = ref.detach().to(device=g.device, dtype=torch.float64).flatten()
    if g.shape != r.shape:
        raise ValueError(f"{tensor}: shape {tuple(got.shape)} but the reference has {tuple(ref.shape)}")
    nan = torch.isnan(g)
    inf = (torch.isinf(g) | torch.isinf(r)) & ~nan
    inf_mismatch = int((inf & (g != r)).sum())
    finite = ~nan & ~inf
    g, r = g[finite], r[finite]
    err = (g - r).abs()
    max_ref = float(r.abs().max()) if r.numel() else 0.0
    max_err = float(err.max()) if err.numel() else 0.0
    err2, ref2, got2 = float((err * err).sum()), float((r * r).sum()), float((g * g).sum())

    def ratio(num: float, den: float, when_zero: float) -> float:
        return num / den if den > 0 else (math.inf if num > 0 else when_zero)

    m = {
        "tensor": tensor,
        "elements": int(got.numel()),
        "rel_max": ratio(max_err, max_ref, 0.0),
        "rel_l2": math.sqrt(ratio(err2, ref2, 0.0)),
        "norm_ratio": math.sqrt(ratio(got2, ref2, 1.0)),
        "max_abs_err": max_err,
        "nan_count": int(nan.sum()),
        "inf_mismatch": inf_mismatch,
        "unwritten": 0,
    }
    why = ""
    if m["nan_count"]:
        why = f"{m['nan_count']} NaN"
    elif inf_mismatch:
        why = f"{inf_mismatch} infinities where the reference differs"
    elif not m["rel_max"] <= rel_max_tol:
        why = f"rel_max {m['rel_max']:.6g} > {rel_max_tol:g}"
    elif not m["rel_l2"] <= rel_l2_tol:
        why = f"rel_l2 {m['rel_l2']:.6g} > {rel_l2_tol:g}"
    m["pass"] = not why
    m["why"] = why
    return m
