"""Reads a `vsa-bench dump` directory: case.json plus one .npy file per tensor.

The format is described in app/dump/case_dump.hpp. Inputs (q, k, v, do) are bf16
bit patterns stored as uint16; reference outputs (o, lse, dq, dk, dv) are float32 and
present only when the dump ran the CPU reference.

Standard library only: GPU nodes may have torch without numpy, so the .npy files
are read here (NEP 1 format: magic, version, header dict, raw C-order data) and
turned into tensors by case_tensors.py.
"""
from __future__ import annotations

import ast
import json
import pathlib
import struct
from dataclasses import dataclass, field

SCHEMA = "vsa-bench/case-dump"
INPUTS = ("q", "k", "v", "do")
INDEX_LISTS = ("q2k_idx", "q2k_num", "k2q_idx", "k2q_num", "vbs")
OUTPUTS = ("o", "lse", "dq", "dk", "dv")
NPY_DTYPES = {"<u2": ("uint16", 2), "<i4": ("int32", 4), "<f4": ("float32", 4)}


class DumpError(ValueError):
    """A dump directory that is missing files or disagrees with its case.json."""


@dataclass
class NpyArray:
    dtype: str  # "uint16" | "int32" | "float32"
    shape: tuple[int, ...]
    data: bytes  # little-endian, C order


def read_npy(path: pathlib.Path) -> NpyArray:
    raw = path.read_bytes()
    if raw[:6] != b"\x93NUMPY":
        raise DumpError(f"{path}: not a .npy file")
    major = raw[6]
    size_format, start = ("<H", 10) if major == 1 else ("<I", 12)
    (header_len,) = struct.unpack(size_format, raw[8:start])
    header = ast.literal_eval(raw[start:start + header_len].decode("latin1"))
    if header.get("fortran_order") or header.get("descr") not in NPY_DTYPES:
        raise DumpError(f"{path}: unsupported layout {header}")
    dtype, item = NPY_DTYPES[header["descr"]]
    shape = tuple(int(d) for d in header["shape"])
    count = 1
    for d in shape:
        count *= d
    data = raw[start + header_len:]
    if len(data) != count * item:
        raise DumpError(f"{path}: {len(data)} data bytes for shape {shape} of {dtype}")
    return NpyArray(dtype, shape, data)


@dataclass
class DumpedCase:
    path: pathlib.Path
    meta: dict  # case.json as read
    arrays: dict[str, NpyArray] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.meta["name"]

    @property
    def spec(self) -> dict:
        return self.meta["spec"]

    @property
    def shape(self) -> dict:
        return self.meta["shape"]

    @property
    def reference_backend(self) -> str | None:
        ref = self.meta.get("reference")
        return ref.get("backend") if isinstance(ref, dict) else None

    def has_reference(self, tensor: str) -> bool:
        return tensor in OUTPUTS and tensor in self.arrays

    @property
    def runs_backward(self) -> bool:
        return self.spec.get("op", "both") in ("bwd", "both")


def load_dump(directory: str | pathlib.Path) -> DumpedCase:
    path = pathlib.Path(directory)
    meta_path = path / "case.json"
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise DumpError(f"{meta_path}: cannot read ({e})") from e
    if meta.get("schema") != SCHEMA:
        raise DumpError(f'{meta_path}: not a vsa-bench case dump (no "schema": "{SCHEMA}")')
    case = DumpedCase(path=path, meta=meta)
    for name, entry in meta["files"].items():
        file = path / entry["file"]
        try:
            array = read_npy(file)
        except OSError as e:
            raise DumpError(f"{file}: cannot read ({e})") from e
        if list(array.shape) != list(entry["shape"]) or array.dtype != entry["dtype"]:
            raise DumpError(f"{file}: {array.dtype}{list(array.shape)} but case.json says "
                            f"{entry['dtype']}{entry['shape']}")
        case.arrays[name] = array
    missing = [t for t in INPUTS + INDEX_LISTS if t not in case.arrays]
    if missing:
        raise DumpError(f"{path}: missing {', '.join(missing)}")
    return case
