"""docs/spec.md's forward and backward in fp32 torch, for cases dumped without CPU outputs.

Only the selected blocks are computed (each q block against its gathered key
blocks), so the cost follows the pair count, not S^2: S = 16384 at 25% density is
seconds on a GPU. It follows docs/spec.md literally, like the CPU reference:
  - softmax over the selected keys at in-block position < vbs[key block];
  - lse in M format (base 2), -inf and O = 0 for rows with no valid key;
  - the backward gets O rounded to bf16 (what every backend's backward gets in
    `vsa-bench run`), Delta = rowsum(O * dO), dS = P * (dP - Delta).
TF32 is switched off for these products: they must be fp32.
"""
from __future__ import annotations

import contextlib
import math

import torch

from case_tensors import CaseTensors

LOG2E = 1.0 / math.log(2.0)


@contextlib.contextmanager
def _matmul_fp32():
    """CUDA matmuls in real fp32 (no TF32) inside the block."""
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


@torch.no_grad()
def reference_outputs(t: CaseTensors, backward: bool) -> dict[str, torch.Tensor]:
    """float32 o, lse (and dq, dk, dv when asked), one (b, h) at a time to bound memory."""
    B, H, S, D = t.q.shape
    nb, blk = t.num_blocks, t.blk
    max_kv = t.q2k_idx.shape[-1]
    out = {"o": torch.empty(B, H, S, D, dtype=torch.float32, device=t.q.device),
           "lse": torch.empty(B, H, S, dtype=torch.float32, device=t.q.device)}
    if backward:
        for name in ("dq", "dk", "dv"):
            out[name] = torch.zeros(B, H, S, D, dtype=torch.float32, device=t.q.device)
    positions = torch.arange(blk, device=t.q.device)
    key_valid = positions[None, :] < t.vbs[:, None].long()  # [nb, blk]
    slots = torch.arange(max_kv, device=t.q.device)
    with _matmul_fp32():
        for b in range(B):
            for h in range(H):
                _one_head(t, b, h, nb, blk, key_valid, slots, out, backward)
    return out


def _one_head(t, b, h, nb, blk, key_valid, slots, out, backward):
    D = t.q.shape[-1]
    max_kv = slots.shape[0]
    keys = max_kv * blk
    q = t.q[b, h].float().view(nb, blk, D)
    k = t.k[b, h].float().view(nb, blk, D)
    v = t.v[b, h].float().view(nb, blk, D)
    ids = t.q2k_idx[b, h].long().clamp(min=0)  # [nb, max_kv]; slots past the count are masked below
    slot_valid = slots[None, :] < t.q2k_num[b, h].long()[:, None]  # [nb, max_kv]
    mask = (slot_valid[:, :, None] & key_valid[ids]).view(nb, 1, keys)  # [nb, 1, keys]
    k_sel = k[ids].view(nb, keys, D)
    v_sel = v[ids].view(nb, keys, D)
    s = torch.bmm(q, k_sel.transpose(1, 2)) * t.softmax_scale  # [nb, blk, keys]
    s = s.masked_fill(~mask, float("-inf"))
    lse_e = torch.logsumexp(s, dim=-1)  # -inf for rows with no valid key
    p = torch.where(mask, torch.exp(s - lse_e[..., None]), torch.zeros((), device=s.device))
    o = torch.bmm(p, v_sel)  # rows with no key: exactly 0
    out["o"][b, h] = o.view(-1, D)
    out["lse"][b, h] = (lse_e * LOG2E).view(-1)
    if not backward:
        return
    do = t.do[b, h].float().view(nb, blk, D)
    o_bf16 = o.to(torch.bfloat16).float()
    delta = (o_bf16 * do).sum(-1)  # [nb, blk]
    dp = torch.bmm(do, v_sel.transpose(1, 2))  # [nb, blk, keys]
    ds = p * (dp - delta[..., None])
    out["dq"][b, h] = (torch.bmm(ds, k_sel) * t.softmax_scale).view(-1, D)
    dv_sel = torch.bmm(p.transpose(1, 2), do).view(nb * max_kv, blk, D)
    dk_sel = (torch.bmm(ds.transpose(1, 2), q) * t.softmax_scale).view(nb * max_kv, blk, D)
    dk = torch.zeros(nb, blk, D, dtype=torch.float32, device=q.device)
    dv = torch.zeros_like(dk)
    flat = ids.reshape(-1)  # masked slots carry zero P and dS, so adding them is harmless
    dk.index_add_(0, flat, dk_sel)
    dv.index_add_(0, flat, dv_sel)
    out["dk"][b, h] = dk.view(-1, D)
    out["dv"][b, h] = dv.view(-1, D)
