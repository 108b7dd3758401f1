#!/usr/bin/env python3
"""Packs, from PyPI, what the flashinfer-vsa peer needs on a GPU node that has no network,
small enough to carry there.

    python3 scripts/peers/pack_flashinfer.py [--out .peers/flashinfer]

The flashinfer-python wheel is ~100 MB, mostly kernel sources of other operators
(flashinfer/data: 450 MB unpacked) that the SM90 VSA forward never compiles. This keeps:
  - every flashinfer/**/*.py outside flashinfer/data (`import flashinfer` imports ~400 of
    them at start; the rest load lazily), and the small files at the package's top level;
  - all of flashinfer/cake_vsa_sm90_backend (build.json and the generated CUDA sources
    that FlashInfer's JIT compiles with nvcc on first use, digest-checked by the package);
  - the wheel's dist-info (version, licence);
and writes OUT/flashinfer-VERSION-vsa.tar.gz, plus OUT/apache_tvm_ffi-*.whl, the one
import dependency the node's image lacks (for its python, --python-version). Each is a
PyPI file, downloaded with pip; nothing is built here.

On the node (scripts/peers/run_on_device.sh does this when OUT exists):
    tar -xzf OUT/flashinfer-*-vsa.tar.gz -C SITE
    python3 -m pip install --no-index --no-deps --target SITE OUT/apache_tvm_ffi-*.whl
    export PYTHONPATH=SITE
The node must have nvcc (the JIT), ninja and the other imports flashinfer needs; the
H200 image has them (torch, numpy, einops, click, packaging, requests, tabulate, tqdm,
nvidia-ml-py, cuda-bindings).
"""
from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import tarfile
import tempfile
import zipfile

FLASHINFER = "flashinfer-python==0.7.4"
TVM_FFI = "apache-tvm-ffi==0.1.15.post2"  # flashinfer 0.7.4 needs apache-tvm-ffi>=0.1.11,<0.2
KEEP_WHOLE = "flashinfer/cake_vsa_sm90_backend/"


def keep(member: str) -> bool:
    if member.startswith(KEEP_WHOLE) or ".dist-info/" in member:
        return True
    if not member.startswith("flashinfer/") or member.startswith("flashinfer/data/"):
        return False
    return member.endswith(".py") or member.count("/") == 1


def node_platform(python_version: str) -> list[str]:
    """pip download's arguments for wheels of the GPU node's CPython on x86-64 Linux."""
    args = ["--python-version", python_version, "--implementation", "cp"]
    for tag in ("manylinux_2_28_x86_64", "manylinux_2_24_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"):
        args += ["--platform", tag]
    return args


def pip_download(requirement: str, into: pathlib.Path, platform_args: list[str]) -> pathlib.Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    *platform_args, "-d", str(into), requirement], check=True)
    name = requirement.split("==")[0].replace("-", "_")
    found = sorted(into.glob(f"{name}-*.whl"))
    if len(found) != 1:
        raise SystemExit(f"pack_flashinfer.py: expected one {name} wheel in {into}, found {found}")
    return found[0]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=".peers/flashinfer", help="output folder (default .peers/flashinfer)")
    p.add_argument("--python-version", default="3.12", help="the node's python (default 3.12, the H200 image's)")
    args = p.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in list(out.glob("flashinfer-*-vsa.tar.gz")) + list(out.glob("apache_tvm_ffi-*.whl")):
        old.unlink()
    tag = "cp" + args.python_version.replace(".", "")
    node = node_platform(args.python_version)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = pip_download(FLASHINFER, pathlib.Path(tmp), [])
        version = wheel.name.split("-")[1]
        archive = out / f"flashinfer-{version}-vsa.tar.gz"
        kept = 0
        with zipfile.ZipFile(wheel) as z, tarfile.open(archive, "w:gz", compresslevel=9) as tar:
            for info in z.infolist():
                if info.is_dir() or not keep(info.filename):
                    continue
                entry = tarfile.TarInfo(info.filename)
                entry.size = info.file_size
                entry.mode = 0o644
                with z.open(info) as data:
                    tar.addfile(entry, data)
                kept += 1
        ffi = pip_download(TVM_FFI, out, node)
    if tag not in ffi.name:
        raise SystemExit(f"pack_flashinfer.py: {ffi.name} is not a {tag} wheel")
    total = sum(f.stat().st_size for f in (archive, ffi))
    print(f"{archive} ({kept} files, {archive.stat().st_size / 2**20:.1f} MiB) and {ffi.name} "
          f"({ffi.stat().st_size / 2**20:.1f} MiB): {total / 2**20:.1f} MiB to carry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
