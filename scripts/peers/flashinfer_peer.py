"""FlashInfer's SM90 variable block-sparse attention (the VSA forward), optional.

flashinfer.VariableBlockSparseAttentionWrapper with backend="cake" runs FlashInfer's
generated Hopper kernels (flashinfer-python 0.7.x: flashinfer/cake_vsa_sm90_backend,
JIT-compiled by nvcc on first use). What that backend takes, from the wrapper's
docstrings in flashinfer/sparse.py and flashinfer/cake_vsa_sm90.py:
  - compute capability 9.0 only; BF16 q/k/v in HND layout (heads, S, 128), head_dim 128;
  - plan(block_mask_map [kv heads, MB, NB] bool, block_row_sz, block_col_sz, ...) with
    every block 64 tokens (so no vbs padding), 1..64 selected key blocks per query
    block, noncausal, sm_scale any finite value;
  - run(q, k, v, out=...) writes O only: "no LSE" (return_lse raises), and there is no
    backward. The peer is checked on O and timed forward only.
"backend='auto'" never picks cake (on SM90 it picks fa3, FlashInfer's generic paged
prefill with one-token pages), so the backend is named explicitly.

The batch is folded into the heads (the wrapper has no batch axis; with as many kv heads
as query heads each (b, h) is its own head and has its own block mask). plan() is called
once per case in prepare(), as FlashInfer's docs intend (plan once, run many), and is
not timed; run() is one kernel launch on the current stream into a preallocated out.
Skipped with the reason when flashinfer does not import, on other devices, and on cases
outside that contract.
"""
from __future__ import annotations

import torch

from case_tensors import CaseTensors, selected_blocks

NAME = "flashinfer-vsa"
BACKEND = "cake"
BLOCK = 64
HEAD_DIM = 128
MAX_SELECTED = 64
WORKSPACE_BYTES = 128 << 20  # the wrapper's documented float workspace size (cake does not use it)


class FlashInferVsaPeer:
    name = NAME

    def __init__(self):
        self.flashinfer = None
        self.load_error = None
        try:
            import flashinfer
            from flashinfer import VariableBlockSparseAttentionWrapper  # noqa: F401

            self.flashinfer = flashinfer
        except Exception as e:  # any failure to import is a reason to skip, reported as such
            self.load_error = f"{type(e).__name__}: {e}"

    @property
    def version(self) -> str:
        return getattr(self.flashinfer, "__version__", "unknown") if self.flashinfer else "not importable"

    @property
    def description(self) -> str:
        return (f"flashinfer-python {self.version}, VariableBlockSparseAttentionWrapper(backend='{BACKEND}'): "
                "the SM90 VSA forward on 64-token blocks, plan() once per case (untimed), run() timed; "
                "forward only, O only")

    @property
    def lse_unavailable(self) -> str:
        return f"lse not checked: backend '{BACKEND}' returns no log-sum-exp (flashinfer {self.version})"

    def unavailable(self, device: torch.device) -> str | None:
        if self.flashinfer is None:
            return f"flashinfer is not importable: {self.load_error} (PyPI flashinfer-python)"
        if device.type != "cuda":
            return f"backend '{BACKEND}' needs a CUDA device of compute capability 9.0"
        capability = torch.cuda.get_device_capability(device)
        if capability != (9, 0):
            return f"backend '{BACKEND}' runs on compute capability 9.0 only; the device has {capability[0]}.{capability[1]}"
        return None

    def case_unsupported(self, t: CaseTensors) -> str | None:
        """Why this case is outside the backend's contract (module docstring), or None."""
        if t.q.shape[-1] != HEAD_DIM:
            return f"backend '{BACKEND}' takes head_dim {HEAD_DIM}; the case has D={t.q.shape[-1]}"
        if t.blk != BLOCK:
            return f"backend '{BACKEND}' takes {BLOCK}-token blocks; the case has blk={t.blk}"
        padded = int((t.vbs != t.blk).sum())
        if padded:
            return (f"backend '{BACKEND}' takes full {BLOCK}-token key blocks; {padded} of the case's "
                    f"{t.num_blocks} key blocks are padded (vbs < {t.blk})")
        fewest, most = int(t.q2k_num.min()), int(t.q2k_num.max())
        if fewest < 1 or most > MAX_SELECTED:
            return (f"backend '{BACKEND}' takes 1..{MAX_SELECTED} selected key blocks per query block; "
                    f"the case selects {fewest}..{most}")
        return None

    def backward_unavailable(self, device: torch.device) -> str | None:
        return "forward only: FlashInfer's variable block-sparse attention has no backward"

    def prepare(self, t: CaseTensors) -> None:
        B, H, S, D = t.q.shape
        heads = B * H
        self.t = t
        self.q, self.k, self.v = (x.reshape(heads, S, D).contiguous() for x in (t.q, t.k, t.v))
        mask = selected_blocks(t).reshape(heads, t.num_blocks, t.num_blocks)
        sizes = torch.full((heads, t.num_blocks), t.blk, dtype=torch.int32, device=t.q.device)
        workspace = torch.empty(WORKSPACE_BYTES, dtype=torch.uint8, device=t.q.device)
        self.wrapper = self.flashinfer.VariableBlockSparseAttentionWrapper(workspace, backend=BACKEND)
        self.wrapper.plan(mask, sizes, sizes.clone(), heads, heads, D, sm_scale=t.softmax_scale,
                          q_data_type=torch.bfloat16, kv_data_type=torch.bfloat16)
        # cake's out: [heads * S, 1, D] contiguous; run() returns its [heads, S, D] view
        self.out = torch.empty(heads * S, 1, D, dtype=torch.bfloat16, device=t.q.device)

    def _run(self) -> torch.Tensor:
        return self.wrapper.run(self.q, self.k, self.v, out=self.out)

    def forward(self) -> tuple[torch.Tensor, None]:
        return self._run().reshape(self.t.q.shape), None

    def forward_launcher(self):
        return self._run

    def release(self) -> None:
        self.t = self.q = self.k = self.v = self.wrapper = self.out = None
