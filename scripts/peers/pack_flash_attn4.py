#!/usr/bin/env python3
"""Packs, from PyPI, what the flex-attention-flash peer needs on a GPU node that has no
network, in parts small enough to carry there one device call at a time.

    python3 scripts/peers/pack_flash_attn4.py [--out .peers/flash_attn4] [--part-mib 50]

torch 2.11's FlexAttention FLASH backend imports `flash_attn.cute` (PyPI flash-attn-4), which
needs the CuTe DSL (nvidia-cutlass-dsl and its library wheels), quack-kernels, apache-tvm-ffi
and torch-c-dlpack-ext. The H200 image has torch, einops, protobuf and cuda-bindings but none
of these. Their wheels are ~100 MB, one library alone 193 MB unpacked
(nvidia-cutlass-dsl-libs-cu13's `_cutlass_ir`): over the 64 MiB one device call may carry.
So this unpacks every wheel into one site folder (as `pip install --target` lays it out),
compresses it with xz (-9: ~72 MB) and splits it into parts of at most --part-mib MiB:

    OUT/flash-attn4-site.tar.xz.part01, .part02, ...
    OUT/flash-attn4-site.parts      one line per part: sha256, size, name (the manifest)

Carry the parts over consecutive calls, each `scripts/device/stash.sh`-ing what it carried
into the machine's /tmp while it stays warm; `scripts/device/peers_check.sh` then joins
them (`scripts/peers/join_parts.sh`: every part present and its digest right, else the peer
is skipped with the reason). Nothing is built; each file is a PyPI wheel fetched with pip.
"""
from __future__ import annotations

import argparse
import hashlib
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zipfile

from pack_flashinfer import node_platform

# flash-attn-4's newest pre-release and the versions its requirements resolve to (2026-12).
WHEELS = [
    "flash-attn-4==4.0.0b36",
    "quack-kernels==0.6.5",
    "nvidia-cutlass-dsl==4.8.1",
    "nvidia-cutlass-dsl-libs-base==4.8.1",
    "nvidia-cutlass-dsl-libs-core==4.8.1",
    "nvidia-cutlass-dsl-libs-cu13==4.8.1",  # torch on the H200 is a CUDA 13 build
    "apache-tvm-ffi==0.1.15.post2",
    "torch-c-dlpack-ext==0.1.5",
]
STEM = "flash-attn4-site.tar.xz"
MANIFEST = "flash-attn4-site.parts"


def unpack_wheel(wheel: pathlib.Path, site: pathlib.Path) -> int:
    """A wheel's files as `pip install --target` places them: `NAME.data/purelib|platlib/x`
    at the top, other `.data` schemes (scripts, headers) dropped (nothing imports them)."""
    n = 0
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if info.is_dir():
                continue
            parts = info.filename.split("/")
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue
                parts = parts[2:]
            target = site.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            if (info.external_attr >> 16) & 0o111:
                target.chmod(0o755)
            n += 1
    return n


def sha256(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=".peers/flash_attn4", help="output folder (default .peers/flash_attn4)")
    p.add_argument("--python-version", default="3.12", help="the node's python (default 3.12, the H200 image's)")
    p.add_argument("--part-mib", type=int, default=50, help="largest part in MiB (default 50)")
    args = p.parse_args(argv)
    if args.part_mib < 1:
        p.error("--part-mib must be at least 1")
    if shutil.which("xz") is None or shutil.which("tar") is None:
        raise SystemExit("pack_flash_attn4.py: needs tar and xz on PATH")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in list(out.glob(STEM + ".part*")) + list(out.glob(MANIFEST)):
        old.unlink()

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = pathlib.Path(tmp_name)
        wheels, site = tmp / "wheels", tmp / "site"
        wheels.mkdir()
        for req in WHEELS:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--pre",
                            "--only-binary=:all:", *node_platform(args.python_version), "-d", str(wheels), req],
                           check=True)
        files = 0
        for wheel in sorted(wheels.glob("*.whl")):
            files += unpack_wheel(wheel, site)
        archive = tmp / STEM
        # xz -T0: every core (the big library alone takes ~3 CPU minutes at -9).
        with open(archive, "wb") as f:
            tar = subprocess.Popen(["tar", "-C", str(site), "-cf", "-", "."], stdout=subprocess.PIPE)
            subprocess.run(["xz", "-9", "-T0", "-c"], stdin=tar.stdout, stdout=f, check=True)
            if tar.wait() != 0:
                raise SystemExit("pack_flash_attn4.py: tar failed")
        size = archive.stat().st_size
        part_bytes = args.part_mib << 20
        lines = []
        with open(archive, "rb") as src:
            for i in range(1, 1 + (size + part_bytes - 1) // part_bytes):
                part = out / f"{STEM}.part{i:02d}"
                with open(part, "wb") as dst:
                    dst.write(src.read(part_bytes))
                lines.append(f"{sha256(part)} {part.stat().st_size} {part.name}")
    (out / MANIFEST).write_text("\n".join(lines) + "\n")
    print(f"{len(WHEELS)} wheels, {files} files -> {size / 2**20:.1f} MiB in {len(lines)} parts of at most "
          f"{args.part_mib} MiB under {out} (manifest {MANIFEST})")
    for line in lines:
        _, n, name = line.split()
        print(f"  {name}: {int(n) / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
