#!/usr/bin/env python3
"""Each wrapper of kernels/sm100a/sm100a_ptx.cuh must compile to the PTX instruction its name
and comment promise, and to no other synchronising one.

Why: the execution model (kernels/sm100a/model/) replaces this wrapper layer with
ptx_model.hpp, and `lint` reads SASS, where a few instruction forms cannot be told apart
(tcgen05.fence::before_thread_sync and ::after_thread_sync). So a wrapper that emitted the
wrong opcode, direction or scope passed both (review of 2026-12-06: `tc_fence_after_sync`
emitting the before-fence was reported by nothing). This check compiles one kernel per
wrapper for sm_100a to PTX (nvcc -ptx) and compares, per kernel, the instructions of the
families below, in order, with the table: the table is the specification, each entry named
by its PTX ISA section.

  wrapper_opcodes.py [--src DIR] [--nvcc PATH] [--plant NAME | --peer-tk DIR]

Also: a wrapper kernel must be straight-line code (no branch, call or predicated instruction of
these families) unless its wrapper is a loop, and the PTX may hold no .func (a function left
out of line, whose instructions no kernel here shows); every function the header defines must
be in the table or in NO_INSTRUCTION, whose functions are compiled too and must emit none of
these families; overloads, default arguments and __device__ code the scan cannot read as a
definition (a macro) are refused, since one call per name could not cover them. Operands: each
instruction's inputs are traced back through moves and address-space conversions to the wrapper
kernel's parameters, and compared, in the ISA's operand order, with the table (each argument of
a call is a different parameter, so two swapped values show, and `bar + 1` shows as a computed
value; so does an operand that lost its state-space conversion or was cut narrower than its
parameter). Results are followed too (OUTPUTS): where each register an instruction writes is
stored, and what a wait loop does after its wait (exit when it completed, else wait again,
whatever the loop's shape). Every other statement must be plain value handling (ALLOWED): a
volatile store, setmaxnreg or exit is reported. Each wrapper called twice must emit its
instruction twice (asm the compiler may merge), and every inline asm of the header must be
volatile with a "memory" clobber (read from the source, since the compiled code does not show a
missing clobber). Opcodes are compared after normalise() folds the spellings the ISA defines as
one instruction. Not checked: tmem_at's arithmetic (the execution model runs that function).
The table spells what nvcc 13.0's CCCL emits; a toolkit that spells an instruction otherwise
(e.g. `.shared::cta` for the default `.shared`) fails here until the table is checked against
the ISA and updated.

--plant rewrites a scratch copy of sm100a_ptx.cuh first (the test shows each check fires
on the real header): after-fence-as-before, wait-ld-as-st, arrive-expect-tx-as-arrive,
commit-group-dropped, new-wrapper-unlisted, guarded-fence, try-wait-twice,
wait-in-compiler-barrier, two-per-asm-string, noinline-helper, overload, macro-wrapper,
barrier-offset, load-coords-swapped, mma-descriptors-swapped, bf16-halves-swapped,
wait-read-allows-one, generic-address, descriptor-cut, try-wait-negated, wait-parity-flips,
load-reversed, smem-addr-unconverted, wait-spins-stale, try-wait-not-volatile,
barrier-no-clobber, keep-input-only, volatile-store-after-init, fence-exit, count-as-bool,
sleep-never-ends; and the same-meaning rewrites of EQUIVALENTS, on which it must stay quiet.
--peer-tk DIR reads ThunderKittens' sm_100a wrappers (PEER_TABLE) the same way; it must find
nothing there (scripts/peers/fetch_tk_blackwell.sh fetches them).
Exit 0: every wrapper matches; 1: a finding (each printed, one line each); 2: the sources did
not compile or bad usage.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The instruction families a wrapper may emit; anything of these families in a kernel body
# is compared with the table, so a wrapper that emits one more (or one fewer) also fails.
FAMILIES = ("tcgen05.", "mbarrier.", "cp.async.", "cp.reduce.async.", "fence.", "membar.", "bar.", "barrier.",
            "prefetch.tensormap", "st.shared", "st.async", "st.bulk", "st.release", "st.relaxed", "ld.acquire",
            "ld.relaxed", "red.", "atom.", "elect.", "tensormap.", "griddepcontrol.", "multimem.", "nanosleep",
            "ex2.", "cvt.rn.bf16x2")
# Wrappers whose body is a loop: every other wrapper kernel must be straight-line code, since a
# branch could skip its instruction (a wrapper that issues the fence only on some threads).
LOOPS = {"mbar_wait", "sleep_ns"}

def words(base, count, step):
    """A register array read from memory, element by element: *base, *base+step, ..."""
    return [f"*{base}" + (f"+{i * step}" if i else "") for i in range(count)]


# wrapper call (arguments are the kernel's parameters, so nothing folds away, and each argument
# of one call is a different parameter, so a swap shows) -> the instructions it must compile to,
# as opcode prefixes with every modifier (PTX ISA 8.x/9.x section names, as sm100a_ptx.cuh cites
# them), and for each instruction where its inputs come from, in the order the ISA's syntax
# gives them (Sources): a parameter's name when the operand is that parameter unchanged,
# `shared(name)` / `global(name)` after a conversion to that state space, `name+8` for an address
# 8 bytes past it, `*name` for a value loaded from it, `<...>` for a value computed, cut or
# redefined, an immediate as written, and `*` where the operand is not compared. Outputs
# (registers no earlier instruction wrote) are left out here; OUTPUTS says where they go.
TABLE = [
    # "Parallel Synchronization and Communication Instructions: mbarrier": mbarrier.init [addr], count;
    # mbarrier.arrive{.expect_tx} state, [addr]{, txCount}; mbarrier.try_wait.parity waitComplete,
    # [addr], phaseParity
    ("mbar_init", "detail::mbar_init(bar, n)", ["mbarrier.init.shared.b64"], [["shared(bar)", "n"]]),
    ("mbar_init_fence", "detail::mbar_init_fence()", ["fence.mbarrier_init.release.cluster"], [[]]),
    ("mbar_arrive", "detail::mbar_arrive(bar)", ["mbarrier.arrive.shared.b64"], [["shared(bar)"]]),
    ("mbar_arrive_expect_tx", "detail::mbar_arrive_expect_tx(bar, n)",
     ["mbarrier.arrive.expect_tx.release.cta.shared::cta.b64"], [["shared(bar)", "n"]]),
    ("mbar_try_wait", "*flag = detail::mbar_try_wait(bar, n)", ["mbarrier.try_wait.parity.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    ("mbar_wait", "detail::mbar_wait(bar, n)", ["mbarrier.try_wait.parity.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    # "Data Movement and Conversion Instructions: cp.async.bulk.tensor / cp.async.bulk /
    # cp.reduce.async.bulk / cp.async.bulk.commit_group / cp.async.bulk.wait_group":
    # cp.async.bulk.tensor [dstMem], [tensorMap, {coords}], [mbar] (load) and [tensorMap, {coords}],
    # [srcMem] (store); cp.async.bulk [dstMem], [srcMem], size, [mbar]; cp.reduce.async.bulk
    # [dstMem], [srcMem], size; wait_group N
    ("tma_load_2d", "detail::tma_load_2d(smem, map, x, y, bar)",
     ["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
     [["shared(smem)", "map", "x", "y", "shared(bar)"]]),
    ("tma_store_2d", "detail::tma_store_2d(map, x, y, smem)",
     ["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"], [["map", "x", "y", "shared(smem)"]]),
    ("tma_store_commit", "detail::tma_store_commit()", ["cp.async.bulk.commit_group"], [[]]),
    ("tma_store_wait_read", "detail::tma_store_wait_read()", ["cp.async.bulk.wait_group.read"], [["0"]]),
    ("bulk_load_1d", "detail::bulk_load_1d(smem, gmem, n, bar)",
     ["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"], [["shared(smem)", "global(gmem)", "n", "shared(bar)"]]),
    ("bulk_reduce_add_f32", "detail::bulk_reduce_add_f32(fdst, fsrc, n)",
     ["cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32"], [["global(fdst)", "shared(fsrc)", "n"]]),
    ("bulk_wait_all", "detail::bulk_wait_all()", ["cp.async.bulk.wait_group"], [["0"]]),
    ("prefetch_tensor_map", "detail::prefetch_tensor_map(map)", ["prefetch.tensormap"], [["map"]]),
    # "Membar / fence": fence.proxy.async
    ("fence_proxy_async_smem", "detail::fence_proxy_async_smem()", ["fence.proxy.async.shared::cta"], [[]]),
    # "Tensor Core 5th Generation Family Instructions": tcgen05.alloc [dst], nCols; tcgen05.dealloc
    # taddr, nCols; tcgen05.mma [d-tmem], a-desc, b-desc, idesc, enable-input-d; tcgen05.commit
    # [mbar]; tcgen05.ld r, [taddr]; tcgen05.st [taddr], r
    ("tmem_alloc", "detail::tmem_alloc(out, n)", ["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"],
     [["shared(out)", "n"]]),
    ("tmem_relinquish_alloc_permit", "detail::tmem_relinquish_alloc_permit()",
     ["tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"], [[]]),
    ("tmem_dealloc", "detail::tmem_dealloc(n, n2)", ["tcgen05.dealloc.cta_group::1.sync.aligned.b32"], [["n", "n2"]]),
    ("umma_bf16_ss", "detail::umma_bf16_ss(n, d, d2, n2, acc)", ["tcgen05.mma.cta_group::1.kind::f16"],
     [["n", "d", "d2", "n2", "acc"]]),
    ("umma_commit", "detail::umma_commit(bar)",
     ["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"], [["shared(bar)"]]),
    ("tmem_load_32cols", "{ std::uint32_t r[32]; detail::tmem_load_32cols(r, n); for (int i = 0; i < 32; ++i) out[i] = r[i]; }",
     ["tcgen05.ld.sync.aligned.32x32b.x32.b32"], [["n"]]),
    ("tmem_load_64cols", "{ std::uint32_t r[64]; detail::tmem_load_64cols(r, n); for (int i = 0; i < 64; ++i) out[i] = r[i]; }",
     ["tcgen05.ld.sync.aligned.32x32b.x64.b32"], [["n"]]),
    ("tmem_store_32cols", "{ std::uint32_t r[32]; for (int i = 0; i < 32; ++i) r[i] = out[i]; detail::tmem_store_32cols(n, r); }",
     ["tcgen05.st.sync.aligned.32x32b.x32.b32"], [["n"] + words("global(out)", 32, 4)]),
    ("tmem_wait_ld", "detail::tmem_wait_ld()", ["tcgen05.wait::ld.sync.aligned"], [[]]),
    ("tmem_wait_st", "detail::tmem_wait_st()", ["tcgen05.wait::st.sync.aligned"], [[]]),
    ("tc_fence_before_sync", "detail::tc_fence_before_sync()", ["tcgen05.fence::before_thread_sync"], [[]]),
    ("tc_fence_after_sync", "detail::tc_fence_after_sync()", ["tcgen05.fence::after_thread_sync"], [[]]),
    # "Parallel Synchronization and Communication Instructions: bar": bar.sync a{, b}, a the
    # barrier, b the thread count
    ("named_barrier_sync", "detail::named_barrier_sync(int(n), int(n2))", ["bar.sync"], [["n", "n2"]]),
    # The public part: the generic-proxy shared store, and the arithmetic. "cvt": for .bf16x2 the
    # first source goes to the upper half, so pack_bf16x2(lo, hi) passes hi first.
    ("st_shared_v4", "st_shared_v4(n, n2, n3, std::uint32_t(x), std::uint32_t(y))", ["st.shared.v4.b32"],
     [["n", "n2", "n3", "x", "y"]]),
    ("sleep_ns", "sleep_ns(n)", ["nanosleep.u32"], [["<min.u32>"]]),  # a chunk of n, at most 1 ms
    ("fast_exp2", "*fout = fast_exp2(fa)", ["ex2.approx.ftz.f32"], [["fa"]]),
    ("pack_bf16x2", "*out = pack_bf16x2(fa, fb)", ["cvt.rn.bf16x2.f32"], [["fb", "fa"]]),
]

# Where a kernel's results go: its global stores (`address=value`, value `*` not compared) and
# its branches (`back` or `forward`, and on what), for the kernels whose wrapper returns a value,
# fills registers or loops; every other kernel must store and branch nowhere. None: not compared.
# A wait loop must leave exactly when its wait completed and otherwise wait again (wait_loop).
WAIT_LOOP = {True: "exit", False: "wait again"}
OUTPUTS = {
    "mbar_try_wait": (["global(flag)=out#0"], []),  # the flag is the wait's own predicate
    "mbar_wait": ([], WAIT_LOOP),
    "tmem_load_32cols": ([f"global(out){f'+{4 * i}' if i else ''}=out#{i}" for i in range(32)], []),
    "tmem_load_64cols": ([f"global(out){f'+{4 * i}' if i else ''}=out#{i}" for i in range(64)], []),
    "fast_exp2": (["global(fout)=out#0"], []),
    "pack_bf16x2": (["global(out)=out#0"], []),
    # Skips the loop when n is 0, loops while the remainder it counts down is not.
    "sleep_ns": ([], ["forward if <<redefined> == 0>", "back if <<redefined> != 0>"]),
    "smem_addr": (["global(out)=shared(smem)"], []),  # the generic-to-shared conversion itself
    "ld_shared": (["global(out)=*global(smem)"], []),
    # The TMEM address arithmetic is the same function in the execution model, whose runs check it.
    "tmem_at": (["global(out)=*"], []),
    "keep_after_wait": (["global(out)=n", "global(out)+4=*"], []),
}
BOOL_PARAMS = {"acc", "flag"}
# Arithmetic wrappers: pure, so the compiler may merge two calls and need not order memory.
PURE = {"fast_exp2", "pack_bf16x2"}

# Functions of the header that issue no instruction of the families above, with why; every other
# function of the header must be in TABLE, so a new wrapper cannot go unchecked.
# Each is compiled too, and must emit nothing of the families above.
NO_INSTRUCTION = {
    "smem_addr": ("*out = smem_addr(smem)", "address conversion (cvta)"),
    "tmem_at": ("*out = tmem_at(n, x, y)", "arithmetic on a TMEM address"),
    "ld_shared": ("*out = ld_shared(reinterpret_cast<const std::uint32_t*>(smem))",
                  "a plain C++ load (ld.shared only where the compiler picks it)"),
    "keep_after_wait": ("{ std::uint32_t r[2] = {n, n + 1}; keep_after_wait(r); out[0] = r[0]; out[1] = r[1]; }",
                        "an empty asm with a memory clobber: a compiler barrier, no instruction"),
}

PLANTS = {
    "after-fence-as-before": ("cuda::ptx::tcgen05_fence_after_thread_sync()", "cuda::ptx::tcgen05_fence_before_thread_sync()"),
    "wait-ld-as-st": ("void tmem_wait_ld() { cuda::ptx::tcgen05_wait_ld(); }", "void tmem_wait_ld() { cuda::ptx::tcgen05_wait_st(); }"),
    "arrive-expect-tx-as-arrive": (
        "(void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,",
        "(void)cuda::ptx::mbarrier_arrive(bar); (void)("),
    "commit-group-dropped": ("void tma_store_commit() { cuda::ptx::cp_async_bulk_commit_group(); }", "void tma_store_commit() {}"),
    "new-wrapper-unlisted": ("}  // namespace detail",
                             "__forceinline__ __device__ static void* tc_fence_unlisted() {\n"
                             "  cuda::ptx::tcgen05_fence_after_thread_sync();\n  return nullptr;\n}\n"
                             "}  // namespace detail"),
    "guarded-fence": ("void tc_fence_after_sync() { cuda::ptx::tcgen05_fence_after_thread_sync(); }",
                      "void tc_fence_after_sync() { if (threadIdx.x == 0) cuda::ptx::tcgen05_fence_after_thread_sync(); }"),
    "try-wait-twice": ("  return cuda::ptx::mbarrier_try_wait_parity(bar, parity);",
                       "  return cuda::ptx::mbarrier_try_wait_parity(bar, parity) && cuda::ptx::mbarrier_try_wait_parity(bar, parity);"),
    "two-per-asm-string": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                           'asm volatile("bar.sync %0, %1; tcgen05.fence::before_thread_sync;\\n" ::"r"(id), "r"(threads) '
                           ': "memory");'),
    "noinline-helper": ("__device__ __forceinline__ void tc_fence_after_sync() { cuda::ptx::tcgen05_fence_after_thread_sync(); }",
                        "__noinline__ __device__ void tc_helper_ni() { cuda::ptx::tcgen05_fence_after_thread_sync(); }\n"
                        "__device__ __forceinline__ void tc_fence_after_sync() { tc_helper_ni(); }"),
    "overload": ("}  // namespace detail",
                 "__device__ __forceinline__ void tc_fence_after_sync(int) { cuda::ptx::tcgen05_fence_before_thread_sync(); }\n"
                 "}  // namespace detail"),
    "macro-wrapper": ("}  // namespace detail",
                      "#define VSA_FENCE_FN(fname) \\\n  __device__ __forceinline__ void fname() { "
                      "cuda::ptx::tcgen05_fence_before_thread_sync(); }\nVSA_FENCE_FN(tc_fence_macro)\n"
                      "}  // namespace detail"),
    # Operands (the wrapper hands its instruction the wrong value, or two values swapped)
    "barrier-offset": ("void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }",
                       "void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar + 1); }"),
    "load-coords-swapped": ("const std::int32_t coords[2] = {x, y};\n  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster",
                            "const std::int32_t coords[2] = {y, x};\n  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster"),
    "mma-descriptors-swapped": ("cuda::ptx::cta_group_1, d_tmem, a_desc, b_desc, idesc, accumulate",
                                "cuda::ptx::cta_group_1, d_tmem, b_desc, a_desc, idesc, accumulate"),
    "bf16-halves-swapped": (': "=r"(r) : "f"(hi), "f"(lo));', ': "=r"(r) : "f"(lo), "f"(hi));'),
    "wait-read-allows-one": ("cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});",
                             "cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{});"),
    # Found by the review of the operand check: a generic address where the instruction wants a
    # shared one, a 64-bit descriptor cut to 32 bits, a result inverted, a loop that changes its
    # parity, registers read back in another order, smem_addr without its conversion.
    "generic-address": ("void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }",
                        'void mbar_arrive(std::uint64_t* bar) { asm volatile("mbarrier.arrive.shared.b64 _, [%0];" '
                        ':: "l"(bar) : "memory"); }'),
    "descriptor-cut": ("std::uint32_t d_tmem, std::uint64_t a_desc,", "std::uint32_t d_tmem, std::uint32_t a_desc,"),
    "try-wait-negated": ("  return cuda::ptx::mbarrier_try_wait_parity(bar, parity);",
                         "  return !cuda::ptx::mbarrier_try_wait_parity(bar, parity);"),
    "wait-parity-flips": ("  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n  }",
                          "  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n    parity ^= 1u;\n  }"),
    "load-reversed": ("void tmem_load_32cols(std::uint32_t (&r)[32], std::uint32_t taddr) {\n  cuda::ptx::tcgen05_ld_32x32b(r, taddr);",
                      "void tmem_load_32cols(std::uint32_t (&r)[32], std::uint32_t taddr) {\n  std::uint32_t t[32];\n"
                      "  cuda::ptx::tcgen05_ld_32x32b(t, taddr);\n  for (int i = 0; i < 32; ++i) r[i] = t[31 - i];"),
    "smem-addr-unconverted": ("return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));",
                              "return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));"),
    # Found by the second review: what a loop does after its wait, asm the compiler may merge or
    # move, statements outside the families (a volatile store, exit), a count made a bool.
    "wait-spins-stale": ("  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n  }",
                         '  asm volatile("{\\n.reg .pred p;\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n'
                         'WAIT_%=:\\n@!p bra WAIT_%=;\\n}\\n" :: "r"(smem_addr(bar)), "r"(parity) : "memory");'),
    "try-wait-not-volatile": ("  return cuda::ptx::mbarrier_try_wait_parity(bar, parity);",
                              '  std::uint32_t ok;\n  asm("{\\n.reg .pred p;\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;'
                              '\\nselp.u32 %0, 1, 0, p;\\n}\\n" : "=r"(ok) : "r"(smem_addr(bar)), "r"(parity));\n  return ok != 0;'),
    "barrier-no-clobber": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                           'asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads));'),
    "keep-input-only": ('for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");',
                        'for (int i = 0; i < N; ++i) asm volatile("" :: "r"(r[i]) : "memory");'),
    "volatile-store-after-init": ("  cuda::ptx::mbarrier_init(bar, arrivals);",
                                  "  cuda::ptx::mbarrier_init(bar, arrivals);\n"
                                  "  *reinterpret_cast<volatile std::uint64_t*>(bar) = 0;"),
    "fence-exit": ("void tc_fence_after_sync() { cuda::ptx::tcgen05_fence_after_thread_sync(); }",
                   'void tc_fence_after_sync() { asm volatile("{\\n.reg .pred p;\\nsetp.ne.u32 p, %0, 0;\\n@p exit;\\n"'
                   '"tcgen05.fence::after_thread_sync;\\n}\\n" :: "r"(threadIdx.x) : "memory"); }'),
    "count-as-bool": ("void mbar_init(std::uint64_t* bar, std::uint32_t arrivals)", "void mbar_init(std::uint64_t* bar, bool arrivals)"),
    "sleep-never-ends": ("    nanoseconds -= chunk;\n", ""),
    "wait-in-compiler-barrier": ('for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");',
                                 'for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");\n'
                                 '  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");'),
}

# ThunderKittens' sm_100a wrappers (include/ops/thread/util/{sync,tma}.cuh, ops/thread/mma/
# tcgen05.cuh), read by --peer-tk the same way as ours: the check must stay quiet on code nobody
# here wrote. Its semaphore is an mbarrier; its mma takes the accumulate flag as a template
# immediate, so that operand is not compared.
_SEM = "*reinterpret_cast<kittens::semaphore*>(bar)"
PEER_TABLE = [
    ("init_semaphore", f"kittens::init_semaphore({_SEM}, int(n), 0)", ["mbarrier.init.shared::cta.b64"], [["shared(bar)", "n"]]),
    ("arrive", f"kittens::arrive({_SEM})", ["mbarrier.arrive.release.cta.shared::cta.b64"], [["shared(bar)"]]),
    ("arrive_count", f"kittens::arrive({_SEM}, n)", ["mbarrier.arrive.release.cta.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    ("wait", f"kittens::wait({_SEM}, int(n))", ["mbarrier.try_wait.parity.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    ("expect_bytes", f"kittens::tma::expect_bytes({_SEM}, n)", ["mbarrier.arrive.expect_tx.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    ("st_st", "kittens::detail::tcgen05::st_st<kittens::bf16, 1>(n, d, d2, n2)", ["tcgen05.mma.cta_group::1.kind::f16"],
     [["n", "d", "d2", "n2", "*"]]),
    # TK's commit names no state space and passes a shared-window offset ("l"(__cvta_generic_to_
    # shared(&sem))); ours names .shared::cluster. Whether the ISA reads that operand as generic
    # there was not settled here; the entry records what TK does.
    ("tensor_commit", f"kittens::tensor_commit<1>({_SEM})", ["tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64"],
     [["shared(bar)"]]),
    ("tensor_before_thread_sync", "kittens::tensor_before_thread_sync()", ["tcgen05.fence::before_thread_sync"], [[]]),
    ("tensor_after_thread_sync", "kittens::tensor_after_thread_sync()", ["tcgen05.fence::after_thread_sync"], [[]]),
]
PEER_LOOPS = {"wait"}
PEER_OUTPUTS = {"wait": ([], WAIT_LOOP)}

# Rewrites that mean the same as the real wrapper: --plant applies them like the plants, and the
# check must stay quiet on each (hand-written asm instead of CCCL, the bool as a 0/1 register,
# ThunderKittens' shape of a wait loop, spellings the ISA defines as the same instruction).
EQUIVALENTS = {
    "wait-other-loop-shape": ("  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n  }",
                              '  asm volatile("{\\n.reg .pred P1;\\nLAB_WAIT_%=:\\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], '
                              '%1;\\n@P1 bra.uni DONE_%=;\\nbra.uni LAB_WAIT_%=;\\nDONE_%=:\\n}\\n" :: "r"(smem_addr(bar)), '
                              '"r"(parity) : "memory");'),
    "arrive-spelled-out": ("void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }",
                           'void mbar_arrive(std::uint64_t* bar) { asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, '
                           '[%0];" :: "r"(smem_addr(bar)) : "memory"); }'),
    "barrier-sync-aligned": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                             'asm volatile("barrier.sync.aligned %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");'),
    "hand-asm-arrive": ("void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }",
                        'void mbar_arrive(std::uint64_t* bar) { asm volatile("mbarrier.arrive.shared.b64 _, [%0];" '
                        ':: "r"(std::uint32_t(__cvta_generic_to_shared(bar))) : "memory"); }'),
    "hand-asm-mma": ("cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, d_tmem, a_desc, b_desc, idesc, "
                     "accumulate);",
                     'asm volatile("{\\n.reg .pred p;\\nsetp.eq.u32 p, %4, 1;\\n'
                     'tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\\n}\\n" :: "r"(d_tmem), "l"(a_desc), '
                     '"l"(b_desc), "r"(idesc), "r"(accumulate ? 1u : 0u) : "memory");'),
}

SIGNATURE = ("(std::uint64_t* bar, std::uint32_t n, std::uint64_t d, bool acc, void* smem, const void* gmem, "
             "const CUtensorMap* map, int x, int y, float* fdst, const float* fsrc, std::uint32_t* out, float* fout, "
             "bool* flag, std::uint32_t n2, std::uint32_t n3, std::uint64_t d2, float fa, float fb)")
# The kernel parameters by position, as PTX numbers them (w_<name>_param_<i>).
PARAM_NAMES = [p.split()[-1].strip("*&)") for p in SIGNATURE.strip("()").split(",")]


def translation_unit(table=None, prologue=('#include "sm100a_ptx.cuh"', "using namespace vsa::sm100a;"), pure=PURE):
    """One kernel per call, all with SIGNATURE, so PARAM_NAMES name their operands' sources
    (w_<name>), and for each wrapper that is not pure one that calls it twice (t_<name>)."""
    lines = list(prologue)
    if table is None:
        table = TABLE + [(name, call, [], []) for name, (call, _) in NO_INSTRUCTION.items()]
    for name, call, want, _ in table:
        lines.append(f'extern "C" __global__ void w_{name}{SIGNATURE} {{ {call}; }}')
        if want and name not in pure:
            lines.append(f'extern "C" __global__ void t_{name}{SIGNATURE} {{ {call}; {call}; }}')
    return "\n".join(lines) + "\n"


def header_functions(path):
    """(name -> how many definitions, problems) for the header: every definition (a parameter
    list followed by a body) whose specifiers include __device__, in any order, whatever its
    return type. Problems: a __device__ the scan could not read as such a definition (a macro,
    a brace in a parameter list), or a parameter with a default value (the table compiles one
    call per name, so another path through a default would go unchecked)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", open(path).read(), flags=re.S)
    names, problems, read = {}, [], 0
    for m in re.finditer(r"([^;{}]*?)\b(\w+)\s*\(([^;{}]*?)\)\s*(?:const\s*)?\{", text):
        if "__device__" not in m.group(1) or m.group(2) in ("if", "for", "while", "switch", "return"):
            continue
        read += m.group(1).count("__device__")
        names[m.group(2)] = names.get(m.group(2), 0) + 1
        if "=" in m.group(3):
            problems.append(f"DEFAULT {m.group(2)}: a parameter with a default value; give every call its arguments")
    total = len(re.findall(r"\b__device__\b", text))
    if total != read:
        problems.append(f"UNREAD {total - read} of the header's {total} __device__ declarations are not function "
                        "definitions this check can read (a macro, a brace in a parameter list): write them out")
    for name, count in names.items():
        if count > 1:
            problems.append(f"OVERLOAD {name}: defined {count} times; the table compiles one of them")
    return names, problems


def asm_problems(path, pure):
    """Every inline asm of the header outside the `pure` functions must be `asm volatile` with a
    "memory" clobber: without volatile the compiler may merge or drop it (a try_wait whose result
    it already knows), without the clobber it may move memory accesses across it (a load of
    what a wait made visible, hoisted above the wait). The compiled code shows neither reliably
    (nvcc 13.0 kept loads in place around a clobber-less asm volatile), so the source is read.
    keep_after_wait must also name its registers read-write ("+r"), or it orders nothing."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", open(path).read(), flags=re.S)
    problems = []
    functions = [(m.start(), m.group(1)) for m in re.finditer(r"\b(\w+)\s*\([^;{}]*\)\s*(?:const\s*)?\{", text)
                 if m.group(1) not in ("if", "for", "while", "switch", "return")]
    for m in re.finditer(r"\basm\b", text):
        owner = next((n for s, n in reversed(functions) if s < m.start()), "?")
        depth, i = 0, text.index("(", m.start())
        for j in range(i, len(text)):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                break
        statement = text[m.start():j + 1]
        if owner in pure:
            continue
        if not re.match(r"asm\s+volatile\b", statement):
            problems.append(f"ASM {owner}: an asm without volatile; the compiler may merge or drop it")
        if not re.search(r'"memory"\s*\)$', statement):
            problems.append(f"ASM {owner}: an asm without a \"memory\" clobber; memory accesses may move across it")
        if owner == "keep_after_wait" and '"+r"' not in statement:
            problems.append("ASM keep_after_wait: its registers are not read-write (\"+r\"), so it orders nothing")
    return problems


def split_operands(text):
    """The comma-separated operands of one instruction, commas inside [] or {} kept."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[{"
        depth -= ch in "]}"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


INT_TYPE = re.compile(r"[usb](8|16|32|64)$")


def negate(name):
    return name[4:-1] if name.startswith("not(") and name.endswith(")") else f"not({name})"


class Sources:
    """Where each value of one kernel body came from, as far as a wrapper is concerned. A value
    keeps its source's name through moves, integer widening, and the forms a bool takes
    (setp.ne x, 0; selp 1, 0, p; setp.eq on a bool parameter and 1); an address-space
    conversion wraps it (`shared(bar)`, `global(out)`), and a 32-bit cut is a copy only of a
    shared-window address. A parameter read narrower than it is declared, a register written
    more than once (a loop-carried value), and any other computation are named as such, so
    they differ from the table's names. A register a synchronising instruction writes is its
    output `out#k` (k counts the kernel's outputs in order)."""

    def __init__(self, widths, redefined):
        self.defs, self.widths, self.redefined, self.outputs = {}, widths, redefined, 0

    def record(self, op, operands):
        if not operands or not re.fullmatch(r"%?[A-Za-z_]\w*", operands[0]) or op.startswith(("st.", "bar", "ret")):
            return
        dst, parts = operands[0], op.split(".")
        param = re.search(r"_param_(\d+)\]", operands[1]) if op.startswith("ld.param") and len(operands) > 1 else None
        if param:
            self.defs[dst] = ("param", int(param.group(1)), int(re.sub(r"\D", "", parts[-1]) or 0))
        elif op.startswith("mov.") and len(operands) == 2:
            self.defs[dst] = ("copy", operands[1])
        elif op.startswith("cvta.to.") and len(operands) == 2:
            self.defs[dst] = ("space", operands[1], parts[2])
        elif op.startswith("cvt.") and len(operands) == 2 and len(parts) == 3 and \
                INT_TYPE.match(parts[1]) and INT_TYPE.match(parts[2]):
            self.defs[dst] = ("cvt", operands[1], int(INT_TYPE.match(parts[1]).group(1)),
                              int(INT_TYPE.match(parts[2]).group(1)))
        elif op.startswith("setp.") and len(operands) == 3 and parts[1] in ("ne", "eq"):
            self.defs[dst] = ("test", operands[1], operands[2], parts[1])
        elif op.startswith("selp.") and len(operands) == 4 and {operands[1], operands[2]} == {"0", "1"}:
            self.defs[dst] = ("select", operands[3], operands[1] == "0")
        elif op.startswith("ld.") and len(operands) == 2:
            self.defs[dst] = ("load", operands[1])
        else:
            self.defs[dst] = ("expr", op)

    def name(self, token, depth=0):
        """A token's source, or None for a register nothing before wrote (an output)."""
        if depth > 32:
            return "<cycle>"
        address = re.fullmatch(r"\[\s*(%?\w+)\s*(?:\+\s*(-?\d+))?\s*\]", token)
        if address:
            base = self.name(address.group(1), depth + 1) or address.group(1)
            return base + (f"+{address.group(2)}" if address.group(2) and address.group(2) != "0" else "")
        if re.fullmatch(r"-?(?:0[xX][0-9a-fA-F]+|\d+)[uU]?", token):
            return token
        if token in self.redefined:
            return "<redefined>"
        d = self.defs.get(token)
        if d is None:
            return token if re.fullmatch(r"%\w+\.\w+", token) else None  # a special register: %tid.x
        if d[0] == "param":
            _, index, loaded = d
            name = PARAM_NAMES[index] if index < len(PARAM_NAMES) else f"param{index}"
            declared = self.widths.get(index, loaded)
            return f"<{name} cut to {loaded} bits>" if loaded and loaded < declared else name
        if d[0] == "copy":
            return self.name(d[1], depth + 1)
        if d[0] == "space":
            return f"{d[2]}({self.name(d[1], depth + 1)})"
        if d[0] == "cvt":
            inner, to, source = self.name(d[1], depth + 1), d[2], d[3]
            if to >= source or (to == 32 and str(inner).startswith("shared(")) or self.is_bool(d[1]):
                return inner
            return f"<{inner} cut to {to} bits>"
        if d[0] == "test":
            x, y, how = d[1], d[2], d[3]
            if y not in ("0", "1") and x in ("0", "1"):
                x, y = y, x
            inner = self.name(x, depth + 1)
            if y == "0" and self.is_bool(x):
                return inner if how == "ne" else negate(str(inner))
            if y == "0":  # a value made a bool is no longer the value
                return f"<{inner} {'!=' if how == 'ne' else '=='} 0>"
            if y == "1" and self.is_bool(x):
                return inner if how == "eq" else negate(str(inner))
            return f"<setp.{how}>"
        if d[0] == "select":
            inner = str(self.name(d[1], depth + 1))
            return negate(inner) if d[2] else inner
        if d[0] == "load":
            return "*" + str(self.name(d[1], depth + 1) or d[1])
        if d[0] == "out":
            return d[1]
        return f"<{d[1]}>"

    def is_bool(self, token, depth=0):
        """Whether a register holds only 0 or 1: a bool parameter, a predicate's selp 1, 0, or a
        cast of one."""
        d = self.defs.get(token)
        if d is None or depth > 32:
            return False
        if d[0] == "param":
            return d[1] < len(PARAM_NAMES) and PARAM_NAMES[d[1]] in BOOL_PARAMS
        if d[0] in ("copy", "cvt"):
            return self.is_bool(d[1], depth + 1)
        return d[0] in ("select", "test")

    def inputs(self, operands):
        """The sources of an instruction's operands, flattened in order (a tensor map's
        coordinates and a register vector element by element); outputs left out, and named
        out#k for what reads them later."""
        out, written = [], []
        for operand in operands:
            for token in re.findall(r"\[[^\[\],{}]*\]|%?[A-Za-z_]\w*|-?\d+", operand):
                source = self.name(token)
                if source is not None:
                    out.append(source)
                elif token != "_" and not token.startswith("["):
                    written.append(token)
        for token in written:
            self.defs[token] = ("out", f"out#{self.outputs}")
            self.outputs += 1
        return out


# Everything else a wrapper kernel may contain besides its table instructions: reading its
# parameters, moving, converting and computing values, the harness's global loads and stores,
# branches and the return. Any other statement (a volatile or mmio store, setmaxnreg, exit, trap)
# is reported: the families above are matched by prefix, and a form outside them would pass unseen.
ALLOWED = ("ld.param", "ld.global", "st.global", "mov.", "cvta.to.", "cvt.", "setp.", "selp.", "add.", "sub.", "mul.",
           "mad.", "shl.", "shr.", "and.", "or.", "xor.", "not.", "min.", "max.", "neg.", "bra", "ret")


def wait_loop(statements, labels, conditions, wait_at):
    """What a wait loop does after its wait, for each value of the wait's result (out#0): "exit",
    "wait again" (a back edge to the wait or before it), "spin" (a back edge that skips the
    wait), or "unknown" (a branch on anything else). Judges the loop by what it does, so any
    shape that leaves exactly when the wait completed passes (ours and ThunderKittens')."""
    outcome = {}
    for value in (True, False):
        pc, steps, result = wait_at + 1, 0, "exit"
        while pc < len(statements) and steps < 10000:
            steps += 1
            _, op, _ = statements[pc]
            if op.startswith(("ret", "exit")):
                break
            if op.startswith("bra"):
                condition, target = conditions[pc]
                taken = {"always": True, "out#0": value, "not(out#0)": not value}.get(condition)
                if taken is None:
                    result = f"unknown ({condition})"
                    break
                if taken:
                    if target <= wait_at:
                        result = "wait again"
                        break
                    if target <= pc:
                        result = "spin"
                        break
                    pc = target
                    continue
            pc += 1
        else:
            result = "spin" if steps >= 10000 else result
        outcome[value] = result
    return outcome


def entries(ptx):
    """kernel name -> what the check reads of it: `found` (its instructions of FAMILIES, with
    every modifier, in order), `inputs` (each one's input sources, Sources.inputs), `branches`
    (whether it branches, calls, returns early or guards one of them with a predicate),
    `stores` (its global stores as `address=value`), `conditions` (its branches, `back` or
    `forward`, and on what), `loop` (wait_loop's outcome after its first instruction of
    FAMILIES), `unexpected` (statements outside ALLOWED and FAMILIES); and whether the PTX has
    any .func. A kernel's text runs from its .entry to the next .entry or .func: inline asm opens
    and closes its own braces, so a body is not cut at a brace. Statements are split at ';',
    since one asm string may hold several."""
    out = {}
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"\.entry\s+(\w+)\s*\(", ptx)]
    funcs = [m.start() for m in re.finditer(r"^\s*(?:\.visible\s+|\.weak\s+)?\.func\b", ptx, re.M)]
    for start, name in starts:
        end = min([p for p, _ in starts if p > start] + [p for p in funcs if p > start] + [len(ptx)])
        body = ptx[start:end]
        widths = {int(m.group(2)): int(m.group(1)) for m in
                  re.finditer(r"\.param\s+\.[usbf](\d+)\b[^,\n]*?_param_(\d+)", body)}
        statements, labels = [], {}
        for statement in re.split(r"[;\n]", body[body.index(")"):]):  # after the parameter list
            statement = re.sub(r"//.*", "", statement).strip().lstrip("{}()").strip()
            label = re.match(r"^(\$?\w+):\s*", statement)  # a label before the instruction
            if label:
                labels[label.group(1)] = len(statements)
                statement = statement[label.end():]
            guard = re.match(r"^@(!?)(%?\w+)\s+", statement)
            text = statement[guard.end():] if guard else statement
            op = text.split()[0] if text else ""
            if op == ".reg":  # a name declared again in an inner scope is a new register
                statements.append((None, op, [n.strip() for n in text.split(None, 2)[-1].split(",")]))
            elif op and not op.startswith("."):
                statements.append((guard, op, split_operands(text[len(op):])))
        written = {}
        for _, op, operands in statements:
            if operands and not op.startswith(("st.", "bar", "ret", "bra", ".")) and not op.startswith(FAMILIES):
                written[operands[0]] = written.get(operands[0], 0) + 1
        sources = Sources(widths, {r for r, n in written.items() if n > 1})
        k = {"found": [], "inputs": [], "branches": False, "stores": [], "conditions": [], "unexpected": []}
        at, first_family = {}, None
        for index, (guard, op, operands) in enumerate(statements):
            if op == ".reg":
                for declared in operands:
                    sources.defs.pop(declared, None)
                continue
            if op.startswith(("bra", "call")) or (guard and op.startswith(("ret", "exit", "trap"))):
                k["branches"] = True
            if op.startswith("bra"):
                condition = "always"
                if guard:
                    condition = str(sources.name(guard.group(2)))
                    condition = negate(condition) if guard.group(1) else condition
                target = labels.get(operands[0] if operands else "", len(statements))
                at[index] = (condition, target)
                k["conditions"].append(f"{'back' if target <= index else 'forward'} if {condition}")
            if op.startswith(FAMILIES):
                first_family = index if first_family is None else first_family
                k["found"].append(op)
                k["inputs"].append(sources.inputs(operands))
                k["branches"] = k["branches"] or bool(guard)
            elif not op.startswith(ALLOWED):
                k["unexpected"].append(op)
            elif op.startswith("st.global") and len(operands) == 2:
                k["stores"].append(f"{sources.name(operands[0])}={sources.name(operands[1])}")
            else:
                sources.record(op, operands)
        k["loop"] = wait_loop(statements, labels, at, first_family) if first_family is not None else {}
        out[name] = k
    return out, bool(funcs)


def normalise(op):
    """One spelling for the forms the PTX ISA defines as the same instruction, so a rewrite that
    spells one (hand-written asm, another CCCL overload) is not reported: `.shared` is
    `.shared::cta`; mbarrier.arrive's default semantics and scope are `.release.cta` and
    try_wait's `.acquire.cta`; `barrier.sync.aligned` is `bar.sync`; a store's or load's `.u32`
    / `.s32` is `.b32` (only the size matters)."""
    op = re.sub(r"\.shared(?!::)", ".shared::cta", op)
    if op.startswith("mbarrier.arrive") and not re.search(r"\.(release|relaxed)\b", op):
        op = re.sub(r"^(mbarrier\.arrive(?:\.expect_tx)?)", r"\1.release.cta", op)
    if op.startswith("mbarrier.try_wait") and not re.search(r"\.(acquire|relaxed)\b", op):
        op = re.sub(r"^(mbarrier\.try_wait(?:\.parity)?)", r"\1.acquire.cta", op)
    op = re.sub(r"^barrier\.sync\.aligned$", "bar.sync", op)
    if op.startswith(("st.", "ld.")):
        op = re.sub(r"\.[us](8|16|32|64)$", r".b\1", op)
    return op


def compare(table, got, loops, outputs, pure=()):
    """Prints a finding per entry of the table whose kernel emits other instructions, guards them
    (unless a loop), hands them other operands, stores or branches on other values than
    `outputs` says, or holds a statement outside ALLOWED; and per wrapper whose instruction a
    second call does not repeat (t_ kernels: asm the compiler may merge, not volatile), unless
    `pure` (arithmetic, which may be merged). Returns how many."""
    bad = 0
    for name, _, want, want_inputs in table:
        k = got.get(f"w_{name}")
        if k is None:
            print(f"MISSING {name}: no kernel w_{name} in the PTX")
            bad += 1
            continue
        have = k["found"]
        if [normalise(o) for o in have] != [normalise(o) for o in want]:
            print(f"MISMATCH {name}: emits {have or 'nothing of the checked families'}, the table says {want or 'nothing'}")
            bad += 1
            continue
        for op in k["unexpected"]:
            print(f"UNEXPECTED {name}: `{op}` is neither its table instruction nor plain value handling")
            bad += 1
        guarded = k["branches"] and name not in loops
        if guarded:
            print(f"GUARDED {name}: its instruction is behind a branch, a call or a predicate; a wrapper issues it "
                  "unconditionally")
            bad += 1
        for op, got_in, want_in in zip(have, k["inputs"], want_inputs):
            same = len(got_in) == len(want_in) and all(w == "*" or g == w for g, w in zip(got_in, want_in))
            if not same:
                print(f"OPERANDS {name}: {op} takes {', '.join(got_in) or 'nothing'}; the table says "
                      f"{', '.join(want_in) or 'nothing'}")
                bad += 1
        stores, conditions = k["stores"], k["conditions"]
        want_stores, want_conditions = outputs.get(name, ([], []))
        if want_stores is not None and not (
                len(stores) == len(want_stores) and
                all(w == g or (w.endswith("=*") and g.split("=")[0] == w[:-2]) for g, w in zip(stores, want_stores))):
            first = next((i for i, (g, w) in enumerate(zip(stores, want_stores)) if g != w and w.split("=")[1] != "*"),
                         min(len(stores), len(want_stores)))
            print(f"OUTPUTS {name}: {len(stores)} stores, the table says {len(want_stores)}; store {first} is "
                  f"{stores[first] if first < len(stores) else 'missing'}, the table says "
                  f"{want_stores[first] if first < len(want_stores) else 'none'}")
            bad += 1
        if want_conditions is WAIT_LOOP:
            if k["loop"] != WAIT_LOOP:
                print(f"OUTPUTS {name}: when the wait completes the loop does `{k['loop'].get(True)}`, when not "
                      f"`{k['loop'].get(False)}`; a wait loop exits, or waits again")
                bad += 1
        elif want_conditions is not None and conditions != want_conditions and not guarded:
            print(f"OUTPUTS {name}: branches {', '.join(conditions) or 'nowhere'}; the table says "
                  f"{', '.join(want_conditions) or 'nowhere'}")
            bad += 1
        if name in pure:
            continue
        twice = got.get(f"t_{name}")
        if twice is not None and [normalise(o) for o in twice["found"]] != [normalise(o) for o in want] * 2:
            print(f"VOLATILE {name}: two calls emit {len(twice['found'])} instructions, not {2 * len(want)}: the "
                  "compiler merged them (asm without volatile)")
            bad += 1
    return bad


def compile_ptx(nvcc, source, includes, ptx, std="c++17", defines=()):
    cmd = [nvcc, "-ptx", "-gencode", "arch=compute_100a,code=sm_100a", f"-std={std}", "--expt-relaxed-constexpr"]
    cmd += [f"-D{d}" for d in defines] + [a for i in includes for a in ("-I", i)] + [source, "-o", ptx]
    return subprocess.run(cmd, capture_output=True, text=True)


def check_peer(nvcc, tk_dir):
    """The same reading of ThunderKittens' own sm_100a wrappers (code nobody here wrote), against
    PEER_TABLE; it must find nothing."""
    if not os.path.isfile(os.path.join(tk_dir, "include", "kittens.cuh")):
        print(f"no include/kittens.cuh under {tk_dir}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        tu, ptx = os.path.join(scratch, "peer.cu"), os.path.join(scratch, "peer.ptx")
        open(tu, "w").write(translation_unit(PEER_TABLE, ('#include "kittens.cuh"',)))
        run = compile_ptx(nvcc, tu, [os.path.join(tk_dir, "include")], ptx, "c++20",
                          ("KITTENS_HOPPER", "KITTENS_BLACKWELL"))
        if run.returncode != 0:
            print("the peer's wrappers did not compile:\n" + run.stderr[-4000:], file=sys.stderr)
            return 2
        got, _ = entries(open(ptx).read())
    bad = compare(PEER_TABLE, got, PEER_LOOPS, PEER_OUTPUTS)
    print(f"{len(PEER_TABLE)} ThunderKittens wrappers read; {bad} problems")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--plant", choices=sorted(PLANTS) + sorted(EQUIVALENTS))
    ap.add_argument("--peer-tk", metavar="DIR", help="read ThunderKittens' wrappers (a checkout) instead")
    args = ap.parse_args()
    if not os.path.exists(args.nvcc):
        print(f"no nvcc at {args.nvcc}", file=sys.stderr)
        return 2
    if args.peer_tk:
        return check_peer(args.nvcc, args.peer_tk)
    with tempfile.TemporaryDirectory() as scratch:
        tree = os.path.join(scratch, "sm100a")
        shutil.copytree(os.path.join(args.src, "kernels", "sm100a"), tree,
                        ignore=shutil.ignore_patterns("model", "*.md"))
        if args.plant:
            header = os.path.join(tree, "sm100a_ptx.cuh")
            text = open(header).read()
            old, new = PLANTS.get(args.plant) or EQUIVALENTS[args.plant]
            if text.count(old) != 1:
                print(f"plant {args.plant}: its text is not in sm100a_ptx.cuh exactly once", file=sys.stderr)
                return 2
            open(header, "w").write(text.replace(old, new))
        tu = os.path.join(scratch, "wrappers.cu")
        open(tu, "w").write(translation_unit())
        ptx = os.path.join(scratch, "wrappers.ptx")
        run = compile_ptx(args.nvcc, tu, [tree, os.path.join(args.src, "kernels", "common"),
                                          os.path.join(args.src, "include")], ptx)
        if run.returncode != 0:
            print("the wrappers did not compile:\n" + run.stderr[-4000:], file=sys.stderr)
            return 2
        got, has_funcs = entries(open(ptx).read())
        defined, header_problems = header_functions(os.path.join(tree, "sm100a_ptx.cuh"))
        header_problems += asm_problems(os.path.join(tree, "sm100a_ptx.cuh"), PURE)
    bad = 0
    for problem in header_problems:
        print(problem)
        bad += 1
    if has_funcs:
        print("CALLED the PTX has a .func: a wrapper calls a function that was not inlined, whose instructions "
              "no kernel here shows; make it __forceinline__")
        bad += 1
    listed = {name for name, _, _, _ in TABLE}
    for name in sorted(defined):
        if name not in listed and name not in NO_INSTRUCTION:
            print(f"UNLISTED {name}: a function of sm100a_ptx.cuh in neither the table nor NO_INSTRUCTION")
            bad += 1
    bad += compare(TABLE + [(name, call, [], []) for name, (call, _) in NO_INSTRUCTION.items()], got, LOOPS, OUTPUTS, PURE)
    print(f"{len(TABLE)} wrappers in the table, {len(defined)} functions in the header; {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
