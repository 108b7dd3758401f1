"""FlexAttention with its FLASH backend: the same BlockMask and mask_mod as flex_peer,
compiled with kernel_options={"BACKEND": "FLASH"}.

torch 2.11's inductor lowers such a call to FlashAttention-4's CuTe DSL kernels
(torch/_inductor/kernel/flex/flex_flash_attention.py: forward and backward templates
that call flash_attn.cute with the BlockMask's block lists) instead of its Triton
kernels. FLASH is never chosen by "AUTO"; asked for explicitly, torch raises when it
cannot be used. It needs `flash_attn.cute` importable: PyPI flash-attn-4, which needs
nvidia-cutlass-dsl (the CuTe DSL compiler, whose cu13 library wheel alone is 92 MB),
quack-kernels, apache-tvm-ffi and torch-c-dlpack-ext. Skipped with the reason where
any of that is missing.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import math

import torch

from flex_peer import FlexPeer

NAME = "flex-attention-flash"
TORCH_FLASH_MODULE = "torch._inductor.kernel.flex.flex_flash_attention"


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a parent package is missing
        return False


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


# What FlashAttention-4 raises when its block-sparse kernels cannot take a BlockMask's block
# sizes (flash_attn.cute.block_sparsity; 4.0.0b36's SM90 backward, for one, takes only key
# blocks of its 128-token tile, so our 64-token blocks are refused there).
REFUSAL = "Block sparsity"

# torch before 2.12 returns the FLASH backend's lse multiplied by ln 2 once too often: FA4
# gives natural-log lse and flex_attention's finalizer scales it as if it were base 2
# (pytorch/pytorch#181645; pull request #181824 fixes it upstream, after 2.11: that 2.12 has
# the fix is assumed, not seen). Seen here: every lse element of every case off by exactly
# 1 - ln 2 = 0.3069 relative, O correct (H200, torch 2.11.0+cu130). The peer undoes it for
# those versions and says so; should a version outside this rule carry the bug (or one
# inside lack it), lse fails the check by that same factor: fail-closed, not silent.
LSE_FIXED_IN = (2, 12)


def lse_scaled_by_ln2(torch_version: str) -> bool:
    """Whether this torch's FLASH lse comes back multiplied by ln 2 (pytorch/pytorch#181645)."""
    major, minor = (int(x) for x in torch_version.split("+")[0].split(".")[:2])
    return (major, minor) < LSE_FIXED_IN


class FlexFlashPeer(FlexPeer):
    name = NAME
    kernel_options = {"BACKEND": "FLASH"}

    @property
    def description(self) -> str:
        return (f"torch.nn.attention.flex_attention {torch.__version__} with kernel_options BACKEND=FLASH "
                f"(flash-attn-4 {_version('flash-attn-4')}, nvidia-cutlass-dsl {_version('nvidia-cutlass-dsl')}), "
                "the flex-attention BlockMask, torch.compile (default mode)")

    def unavailable(self, device: torch.device) -> str | None:
        reason = super().unavailable(device)
        if reason:
            return reason
        if device.type != "cuda":
            return "the FLASH backend runs CuTe DSL kernels: it needs a CUDA device"
        if not _found(TORCH_FLASH_MODULE):
            return f"torch {torch.__version__} has no FLASH backend for flex_attention ({TORCH_FLASH_MODULE})"
        if not _found("flash_attn.cute"):
            return ("flash_attn.cute is not importable: the FLASH backend needs PyPI flash-attn-4 with "
                    "nvidia-cutlass-dsl (CuTe DSL), quack-kernels, apache-tvm-ffi and torch-c-dlpack-ext")
        return None

    @property
    def forward_note(self) -> str | None:
        if not lse_scaled_by_ln2(torch.__version__):
            return None
        return (f"lse divided by ln 2 before the check: torch {torch.__version__} returns the FLASH lse scaled "
                "by ln 2 once too often (pytorch/pytorch#181645)")

    def forward(self) -> tuple[torch.Tensor, torch.Tensor]:
        out, lse = super().forward()
        if lse_scaled_by_ln2(torch.__version__):
            lse = lse / math.log(2.0)
        return out, lse

    def backward_refused(self, error: Exception) -> str | None:
        """FA4 refusing the case's block sizes in the backward: not a crash; the forward stands."""
        message = str(error)
        if REFUSAL not in message:
            return None
        what = message[message.index(REFUSAL):].splitlines()[0][:200]
        return (f"backward not run: FlashAttention-4 {_version('flash-attn-4')} refused the case's "
                f"{self.t.blk}-token blocks ({type(error).__name__}: {what})")
