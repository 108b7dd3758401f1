"""A dumped case as torch tensors on one device: bf16 inputs, int32 index lists."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from dumped_case import DumpedCase, NpyArray

_TORCH_DTYPES = {"uint16": torch.int16, "int32": torch.int32, "float32": torch.float32}


@dataclass
class CaseTensors:
    q: torch.Tensor  # [B, H, S, D] bf16, contiguous
    k: torch.Tensor
    v: torch.Tensor
    do: torch.Tensor
    q2k_idx: torch.Tensor  # [B, H, nb, max_kv] int32; past q2k_num, blocks the row did not select (never read)
    q2k_num: torch.Tensor  # [B, H, nb] int32
    k2q_idx: torch.Tensor  # [B, H, nb, max_q] int32
    k2q_num: torch.Tensor
    vbs: torch.Tensor  # [nb] int32
    blk: int
    softmax_scale: float

    @property
    def seq(self) -> int:
        return self.q.shape[2]

    @property
    def num_blocks(self) -> int:
        return self.vbs.shape[0]


def to_tensor(array: NpyArray, device: torch.device) -> torch.Tensor:
    """The array's values; uint16 comes back as int16 with the same bits (see bf16)."""
    flat = torch.frombuffer(bytearray(array.data), dtype=_TORCH_DTYPES[array.dtype])
    return flat.reshape(array.shape).to(device)


def bf16(array: NpyArray, device: torch.device) -> torch.Tensor:
    """uint16 bf16 bit patterns -> a bf16 tensor holding exactly those values."""
    return to_tensor(array, device).view(torch.bfloat16)


def case_tensors(case: DumpedCase, device: torch.device) -> CaseTensors:
    a = case.arrays
    index = {name: to_tensor(a[name], device) for name in ("q2k_idx", "q2k_num", "k2q_idx", "k2q_num", "vbs")}
    return CaseTensors(
        q=bf16(a["q"], device),
        k=bf16(a["k"], device),
        v=bf16(a["v"], device),
        do=bf16(a["do"], device),
        blk=int(case.shape["blk"]),
        softmax_scale=float(case.meta.get("softmax_scale", 1.0 / math.sqrt(case.shape["D"]))),
        **index,
    )


def selected_blocks(t: CaseTensors) -> torch.Tensor:
    """[B, H, nb q blocks, nb key blocks] bool: the key blocks each query block's q2k list selects."""
    nb = t.num_blocks
    ids = t.q2k_idx.long().clamp(min=0)
    valid = torch.arange(ids.shape[-1], device=ids.device) < t.q2k_num.long()[..., None]
    selected = torch.zeros(*ids.shape[:-1], nb + 1, dtype=torch.bool, device=ids.device)
    selected.scatter_(-1, torch.where(valid, ids, nb), True)  # unused slots write to a spare last column
    return selected[..., :nb].contiguous()
