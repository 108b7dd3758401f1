"""PyTorch FlexAttention on our cases: a BlockMask built from the q2k lists.

The mask has 64-token blocks in both directions (BlockMask.from_kv_blocks). Selected
key blocks whose vbs is the full block go in the "full" lists (the kernel skips
mask_mod there); selected blocks with padding go in the partial lists. mask_mod
states the whole rule (key block selected by the query's block, key position <
vbs[key block]), because FlexAttention's eager path ignores the block lists and
applies mask_mod alone; the compiled kernels visit only the listed blocks.
On CUDA forward and backward are torch.compile'd. On the CPU (tests) FlexAttention
runs eagerly, forward only: torch compiles CPU flex for inference without lse and
has no CPU backward.

Inductor's default sm_90 tiles are 128 tokens wide in places (forward BLOCK_M 128,
backward BLOCK_N1 / BLOCK_M2 128), which a 64-token mask cannot use: it skips such
configurations, and for the backward no default remains (torch 2.11). The choices
class below keeps every configuration whose tiles divide the sparse block and, when
none does, uses the default with its tiles shrunk to the block and at most 4 warps
(inductor's hook for out-of-tree heuristics: torch._inductor.config.inductor_choices_class).
"""
from __future__ import annotations

import math
import warnings

import torch

from case_tensors import CaseTensors, selected_blocks

try:
    from torch._inductor.choices import InductorChoices
except ImportError:  # a torch without inductor choices has no FlexAttention either (see unavailable())
    InductorChoices = object

NAME = "flex-attention"


def _fits(block: int, *tiles: int) -> bool:
    return all(block % t == 0 for t in tiles)


class BlockSparseChoices(InductorChoices):
    """Inductor's flex configurations, restricted to tiles that divide `block` (the
    sparse block size), or shrunk to it when none does. At module level so inductor
    can pickle it into its cache keys."""

    block = 64

    def get_flex_attention_fwd_configs(self, head_dim, dtype, device_type="cuda"):
        configs = super().get_flex_attention_fwd_configs(head_dim, dtype, device_type)
        kept = [c for c in configs if _fits(self.block, c.block_m, c.block_n)]
        if not kept and configs:
            c = configs[-1]
            kept = [type(c)(min(c.block_m, self.block), min(c.block_n, self.block), c.num_stages,
                            min(c.num_warps, 4))]
        return kept

    def get_flex_attention_bwd_configs(self, head_dim, dtype, device_type="cuda"):
        configs = super().get_flex_attention_bwd_configs(head_dim, dtype, device_type)
        kept = [c for c in configs if _fits(self.block, c.block_m1, c.block_n1, c.block_m2, c.block_n2)]
        if not kept and configs:
            c = configs[-1]
            tiles = (min(x, self.block) for x in (c.block_m1, c.block_n1, c.block_m2, c.block_n2))
            kept = [type(c)(*tiles, c.num_stages, min(c.num_warps, 4))]
        return kept


def _ordered_lists(ids: torch.Tensor, chosen: torch.Tensor, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row: how many entries are chosen, and those ids first (in q2k order), padded to `width`."""
    count = chosen.sum(-1, dtype=torch.int32)
    order = torch.argsort((~chosen).to(torch.int8), dim=-1, stable=True)
    first = torch.gather(ids, -1, order).to(torch.int32)
    lists = torch.zeros(*ids.shape[:-1], width, dtype=torch.int32, device=ids.device)
    lists[..., : first.shape[-1]] = first
    return count.contiguous(), lists.contiguous()


def build_block_mask(t: CaseTensors):
    from torch.nn.attention.flex_attention import BlockMask

    nb, blk = t.num_blocks, t.blk
    max_kv = t.q2k_idx.shape[-1]
    ids = t.q2k_idx.long().clamp(min=0)
    valid = torch.arange(max_kv, device=ids.device) < t.q2k_num.long()[..., None]
    full_block = (t.vbs == blk)[ids]
    kv_num, kv_idx = _ordered_lists(ids, valid & ~full_block, nb)
    full_num, full_idx = _ordered_lists(ids, valid & full_block, nb)
    selected = selected_blocks(t)
    vbs = t.vbs

    def selected_valid_key(b, h, q_idx, kv_idx):
        kv_block = kv_idx // blk
        return selected[b, h, q_idx // blk, kv_block] & ((kv_idx % blk) < vbs[kv_block])

    mask = BlockMask.from_kv_blocks(kv_num, kv_idx, full_num, full_idx, BLOCK_SIZE=blk,
                                    mask_mod=selected_valid_key, seq_lengths=(t.seq, t.seq))
    # The compiled kernels visit exactly the listed blocks: they must be the selection.
    if not torch.equal(mask.to_dense().bool(), selected):
        raise RuntimeError("BlockMask block lists differ from the q2k selection")
    return mask


class FlexPeer:
    name = NAME
    kernel_options: dict | None = None  # flex_attention's kernel_options (None: inductor's Triton kernels)

    def __init__(self):
        self.t: CaseTensors | None = None

    @property
    def description(self) -> str:
        return ("torch.nn.attention.flex_attention " + torch.__version__ + ", BlockMask from the q2k lists "
                "(64-token blocks, vbs padding via mask_mod), torch.compile (default mode)")

    def unavailable(self, device: torch.device) -> str | None:
        try:
            from torch.nn.attention import flex_attention  # noqa: F401
        except ImportError as e:
            return f"torch {torch.__version__} has no FlexAttention ({e})"
        return None

    def backward_unavailable(self, device: torch.device) -> str | None:
        if device.type == "cpu":
            return f"backward not checked: FlexAttention has no CPU backward (torch {torch.__version__})"
        return None

    def prepare(self, t: CaseTensors) -> None:
        from torch._inductor import config as inductor_config
        from torch.nn.attention.flex_attention import AuxRequest, flex_attention

        self.t = t
        self.mask = build_block_mask(t)
        if t.q.device.type == "cuda":
            BlockSparseChoices.block = t.blk
            inductor_config.inductor_choices_class = BlockSparseChoices
            torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
            self.compiled = torch.compile(flex_attention, dynamic=False)
        else:
            # Eager FlexAttention warns on every call that it is unfused: known, and tests only.
            warnings.filterwarnings("ignore", message=".*flex_attention called without torch.compile.*")
            self.compiled = flex_attention
        self.aux = AuxRequest(lse=True)
        self.q, self.k, self.v = (x.detach().clone().requires_grad_(True) for x in (t.q, t.k, t.v))
        self._graph_out = None

    def _run(self, q, k, v):
        out, aux = self.compiled(q, k, v, block_mask=self.mask, scale=self.t.softmax_scale, return_aux=self.aux,
                                 kernel_options=self.kernel_options)
        return out, aux.lse

    def forward(self) -> tuple[torch.Tensor, torch.Tensor]:
        """O (bf16) and lse in M format (base 2) without autograd."""
        with torch.no_grad():
            out, lse = self._run(self.t.q, self.t.k, self.t.v)
        return out, lse / math.log(2.0)

    def _forward_with_graph(self):
        # O alone, no lse: the backward is of a loss on O (docs/spec.md: dO in, dQ/dK/dV out).
        # With lse among the graph's outputs, inductor's backward also takes an lse tangent,
        # which the FLASH backend refuses ("does not support differentiating through
        # logsumexp") even where that tangent is unused.
        if self._graph_out is None:
            self._graph_out = self.compiled(self.q, self.k, self.v, block_mask=self.mask, scale=self.t.softmax_scale,
                                            kernel_options=self.kernel_options)
        return self._graph_out

    def backward(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        out = self._forward_with_graph()
        return torch.autograd.grad(out, (self.q, self.k, self.v), grad_outputs=self.t.do, retain_graph=True)

    def forward_launcher(self):
        def launch():
            with torch.no_grad():
                self._run(self.t.q, self.t.k, self.t.v)
        return launch

    def backward_launcher(self):
        """Only the backward: the forward graph (O, lse) is built once and kept."""
        out = self._forward_with_graph()
        q, k, v, do = self.q, self.k, self.v, self.t.do
        return lambda: torch.autograd.grad(out, (q, k, v), grad_outputs=do, retain_graph=True)

    def release(self) -> None:
        self._graph_out = None
        self.t = self.mask = self.q = self.k = self.v = None
