#!/usr/bin/env python3
"""Compiles ahead of use the FlashInfer SM90 VSA kernels that the flashinfer-vsa peer loads
on our perf cases, so that its first plan() loads a library instead of compiling one.

FlashInfer 0.7.x ships these kernels as CUDA sources and compiles each on first use
(its JIT: nvcc, then ninja; one library took 30 s of CPU time here). Cases selecting
more than 6 key blocks per query block take the persistent kernel, one of four BF16
stages (cake_jit.PERSISTENT_STAGES); this builds those four for sm_90a in one ninja
run (parallel), through FlashInfer's own build_jit_specs. scripts/peers/run_on_device.sh
starts it in the background while it dumps cases and runs ours.

Best effort: prints what it built, or why it could not, and exits 0 either way (plan()
compiles whatever is missing). Needs no GPU: FLASHINFER_CUDA_ARCH_LIST=9.0a is set
when unset, so it also runs on a machine with nvcc and no GPU.
"""
from __future__ import annotations

import os
import sys
import time

ARCH = "sm_90a"


def main() -> int:
    os.environ.setdefault("FLASHINFER_CUDA_ARCH_LIST", "9.0a")
    started = time.monotonic()
    try:
        from flashinfer.cake_vsa_sm90_backend import cake_build, cake_jit
        from flashinfer.jit import build_jit_specs

        names = [cake_jit.library_name(stage, ARCH) for stage in cake_jit.PERSISTENT_STAGES]
        build_jit_specs([cake_build.jit_spec(name) for name in names])
    except Exception as e:  # the warm-up is optional: plan() builds on demand
        print(f"flashinfer_warmup: nothing built ({type(e).__name__}: {e})")
        return 0
    print(f"flashinfer_warmup: {len(names)} libraries ready in {time.monotonic() - started:.0f} s: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
