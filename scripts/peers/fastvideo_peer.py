"""FastVideo's public Triton block-sparse attention (the VSA fine stage), optional.

FastVideo's fastvideo_kernel package holds a pure-Triton version of the VSA
kernels (triton_kernels/block_sparse_attn_triton.py: a forward over q2k lists and a
backward over q2k + k2q lists, masking keys past vbs). It needs only torch and
Triton, so it runs wherever FlexAttention does. It is used when importable:
  - from an installed fastvideo_kernel package, or
  - from the file itself, given with --fastvideo-triton FILE (a copy of that one
    file from a FastVideo checkout; nothing of FastVideo is part of this project).
Otherwise the peer is skipped with the reason. Its H100/B200 CUDA kernels need a
compiled extension and are not tried here.
"""
from __future__ import annotations

import importlib
import importlib.util

import torch

from case_tensors import CaseTensors

NAME = "fastvideo-triton"
PACKAGE_MODULE = "fastvideo_kernel.triton_kernels.block_sparse_attn_triton"


def _load(path: str | None):
    if path:
        spec = importlib.util.spec_from_file_location("fastvideo_block_sparse_attn_triton", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module, path
    return importlib.import_module(PACKAGE_MODULE), PACKAGE_MODULE


class FastVideoTritonPeer:
    name = NAME

    def __init__(self, source: str | None = None):
        self.source = source
        self.module = None
        self.where = None
        self.load_error = None
        try:
            self.module, self.where = _load(source)
            for fn in ("triton_block_sparse_attn_forward", "triton_block_sparse_attn_backward"):
                if not hasattr(self.module, fn):
                    raise ImportError(f"{self.where} has no {fn}")
        except Exception as e:  # any failure to import is a reason to skip, reported as such
            self.module = None
            self.load_error = f"{type(e).__name__}: {e}"

    @property
    def description(self) -> str:
        return f"FastVideo Triton block-sparse attention ({self.where})" if self.where else "FastVideo Triton"

    def unavailable(self, device: torch.device) -> str | None:
        if self.module is None:
            hint = "" if self.source else " (pass --fastvideo-triton FILE or install fastvideo-kernel)"
            return f"FastVideo's Triton kernels are not importable: {self.load_error}{hint}"
        if device.type != "cuda":
            return "Triton kernels need a CUDA device"
        return None

    def prepare(self, t: CaseTensors) -> None:
        if t.blk != 64:
            raise ValueError(f"FastVideo's Triton kernels use 64-token blocks, the case has {t.blk}")
        self.t = t
        self._fwd = None

    def forward(self):
        t = self.t
        o, lse = self.module.triton_block_sparse_attn_forward(t.q, t.k, t.v, t.q2k_idx, t.q2k_num, t.vbs)
        return o, lse  # its M is already base-2 of the scaled logits (M format)

    def _forward_outputs(self):
        if self._fwd is None:
            self._fwd = self.forward()
        return self._fwd

    def backward(self):
        t = self.t
        o, lse = self._forward_outputs()
        return self.module.triton_block_sparse_attn_backward(t.do, t.q, t.k, t.v, o, lse, t.q2k_idx, t.q2k_num,
                                                             t.k2q_idx, t.k2q_num, t.vbs)

    def forward_launcher(self):
        return self.forward

    def backward_launcher(self):
        self._forward_outputs()
        return self.backward

    def release(self) -> None:
        self.t = self._fwd = None
