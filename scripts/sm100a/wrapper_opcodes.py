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

  wrapper_opcodes.py [--src DIR] [--nvcc PATH] [--plant NAME]

Also: a wrapper kernel must be straight-line code (no branch, call or predicated instruction of
these families) unless its wrapper is a loop, and the PTX may hold no .func (a function left
out of line, whose instructions no kernel here shows); every function the header defines must
be in the table or in NO_INSTRUCTION, whose functions are compiled too and must emit none of
these families; overloads, default arguments and __device__ code the scan cannot read as a
definition (a macro) are refused, since one call per name could not cover them. Not checked:
operands. Which barrier, TMEM address or tensor map an instruction gets
is not compared (a wrapper passing `bar + 1` passes here); the wrappers hand their parameters
straight to CCCL, and the values come from the protocol cursor, which the execution model runs.
The table spells what nvcc 13.0's CCCL emits; a toolkit that spells an instruction otherwise
(e.g. `.shared::cta` for the default `.shared`) fails here until the table is checked against
the ISA and updated.

--plant rewrites a scratch copy of sm100a_ptx.cuh first (the test shows each check fires
on the real header): after-fence-as-before, wait-ld-as-st, arrive-expect-tx-as-arrive,
commit-group-dropped, new-wrapper-unlisted, guarded-fence, try-wait-twice,
wait-in-compiler-barrier, two-per-asm-string, noinline-helper, overload, macro-wrapper.
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

# wrapper call (arguments are the kernel's parameters, so nothing folds away) -> the
# instructions it must compile to, as opcode prefixes with every modifier (PTX ISA 8.x/9.x
# section names, as sm100a_ptx.cuh cites them).
TABLE = [
    # "Parallel Synchronization and Communication Instructions: mbarrier"
    ("mbar_init", "detail::mbar_init(bar, n)", ["mbarrier.init.shared.b64"]),
    ("mbar_init_fence", "detail::mbar_init_fence()", ["fence.mbarrier_init.release.cluster"]),
    ("mbar_arrive", "detail::mbar_arrive(bar)", ["mbarrier.arrive.shared.b64"]),
    ("mbar_arrive_expect_tx", "detail::mbar_arrive_expect_tx(bar, n)",
     ["mbarrier.arrive.expect_tx.release.cta.shared::cta.b64"]),
    ("mbar_try_wait", "*flag = detail::mbar_try_wait(bar, n)", ["mbarrier.try_wait.parity.shared::cta.b64"]),
    ("mbar_wait", "detail::mbar_wait(bar, n)", ["mbarrier.try_wait.parity.shared::cta.b64"]),
    # "Data Movement and Conversion Instructions: cp.async.bulk.tensor / cp.async.bulk /
    # cp.reduce.async.bulk / cp.async.bulk.commit_group / cp.async.bulk.wait_group"
    ("tma_load_2d", "detail::tma_load_2d(smem, map, x, y, bar)",
     ["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"]),
    ("tma_store_2d", "detail::tma_store_2d(map, x, y, smem)",
     ["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"]),
    ("tma_store_commit", "detail::tma_store_commit()", ["cp.async.bulk.commit_group"]),
    ("tma_store_wait_read", "detail::tma_store_wait_read()", ["cp.async.bulk.wait_group.read"]),
    ("bulk_load_1d", "detail::bulk_load_1d(smem, gmem, n, bar)",
     ["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"]),
    ("bulk_reduce_add_f32", "detail::bulk_reduce_add_f32(fdst, fsrc, n)",
     ["cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32"]),
    ("bulk_wait_all", "detail::bulk_wait_all()", ["cp.async.bulk.wait_group"]),
    ("prefetch_tensor_map", "detail::prefetch_tensor_map(map)", ["prefetch.tensormap"]),
    # "Membar / fence": fence.proxy.async
    ("fence_proxy_async_smem", "detail::fence_proxy_async_smem()", ["fence.proxy.async.shared::cta"]),
    # "Tensor Core 5th Generation Family Instructions"
    ("tmem_alloc", "detail::tmem_alloc(out, n)", ["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"]),
    ("tmem_relinquish_alloc_permit", "detail::tmem_relinquish_alloc_permit()",
     ["tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"]),
    ("tmem_dealloc", "detail::tmem_dealloc(n, n)", ["tcgen05.dealloc.cta_group::1.sync.aligned.b32"]),
    ("umma_bf16_ss", "detail::umma_bf16_ss(n, d, d, n, acc)", ["tcgen05.mma.cta_group::1.kind::f16"]),
    ("umma_commit", "detail::umma_commit(bar)",
     ["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"]),
    ("tmem_load_32cols", "{ std::uint32_t r[32]; detail::tmem_load_32cols(r, n); for (int i = 0; i < 32; ++i) out[i] = r[i]; }",
     ["tcgen05.ld.sync.aligned.32x32b.x32.b32"]),
    ("tmem_load_64cols", "{ std::uint32_t r[64]; detail::tmem_load_64cols(r, n); for (int i = 0; i < 64; ++i) out[i] = r[i]; }",
     ["tcgen05.ld.sync.aligned.32x32b.x64.b32"]),
    ("tmem_store_32cols", "{ std::uint32_t r[32]; for (int i = 0; i < 32; ++i) r[i] = out[i]; detail::tmem_store_32cols(n, r); }",
     ["tcgen05.st.sync.aligned.32x32b.x32.b32"]),
    ("tmem_wait_ld", "detail::tmem_wait_ld()", ["tcgen05.wait::ld.sync.aligned"]),
    ("tmem_wait_st", "detail::tmem_wait_st()", ["tcgen05.wait::st.sync.aligned"]),
    ("tc_fence_before_sync", "detail::tc_fence_before_sync()", ["tcgen05.fence::before_thread_sync"]),
    ("tc_fence_after_sync", "detail::tc_fence_after_sync()", ["tcgen05.fence::after_thread_sync"]),
    # "Parallel Synchronization and Communication Instructions: bar"
    ("named_barrier_sync", "detail::named_barrier_sync(int(n), int(n))", ["bar.sync"]),
    # The public part: the generic-proxy shared store and the arithmetic
    ("st_shared_v4", "st_shared_v4(n, n, n, n, n)", ["st.shared.v4.b32"]),
    ("sleep_ns", "sleep_ns(n)", ["nanosleep.u32"]),
    ("fast_exp2", "*fout = fast_exp2(*fout)", ["ex2.approx.ftz.f32"]),
    ("pack_bf16x2", "*out = pack_bf16x2(*fout, fout[1])", ["cvt.rn.bf16x2.f32"]),
]

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
    "wait-in-compiler-barrier": ('for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");',
                                 'for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");\n'
                                 '  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");'),
}

SIGNATURE = ("(std::uint64_t* bar, std::uint32_t n, std::uint64_t d, bool acc, void* smem, const void* gmem, "
             "const CUtensorMap* map, int x, int y, float* fdst, const float* fsrc, std::uint32_t* out, float* fout, "
             "bool* flag)")


def translation_unit():
    lines = ['#include "sm100a_ptx.cuh"', "using namespace vsa::sm100a;"]
    calls = [(name, call) for name, call, _ in TABLE] + [(name, call) for name, (call, _) in NO_INSTRUCTION.items()]
    for name, call in calls:
        lines.append(f'extern "C" __global__ void w_{name}{SIGNATURE} {{ {call}; }}')
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


def entries(ptx):
    """kernel name -> (its instructions of FAMILIES, with every modifier, in order; whether it
    branches, calls, or guards one of them with a predicate), and whether the PTX has any .func.
    A kernel's text runs from its .entry to the next .entry or .func: inline asm opens and
    closes its own braces, so a body is not cut at a brace. Statements are split at ';', since
    one asm string may hold several."""
    out = {}
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"\.entry\s+(w_\w+)\s*\(", ptx)]
    funcs = [m.start() for m in re.finditer(r"^\s*(?:\.visible\s+|\.weak\s+)?\.func\b", ptx, re.M)]
    for start, name in starts:
        end = min([p for p, _ in starts if p > start] + [p for p in funcs if p > start] + [len(ptx)])
        found, branches = [], False
        for statement in re.split(r"[;\n]", ptx[start:end]):
            statement = statement.strip().lstrip("{}").strip()
            guard = re.match(r"^@!?%?\w+\s+", statement)
            op = statement[guard.end():] if guard else statement
            op = op.split()[0] if op else ""
            if op.startswith(("bra", "call")):
                branches = True
            if op.startswith(FAMILIES):
                found.append(op)
                branches = branches or bool(guard)
        out[name] = (found, branches)
    return out, bool(funcs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--plant", choices=sorted(PLANTS))
    args = ap.parse_args()
    if not os.path.exists(args.nvcc):
        print(f"no nvcc at {args.nvcc}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        tree = os.path.join(scratch, "sm100a")
        shutil.copytree(os.path.join(args.src, "kernels", "sm100a"), tree,
                        ignore=shutil.ignore_patterns("model", "*.md"))
        if args.plant:
            header = os.path.join(tree, "sm100a_ptx.cuh")
            text = open(header).read()
            old, new = PLANTS[args.plant]
            if text.count(old) != 1:
                print(f"plant {args.plant}: its text is not in sm100a_ptx.cuh exactly once", file=sys.stderr)
                return 2
            open(header, "w").write(text.replace(old, new))
        tu = os.path.join(scratch, "wrappers.cu")
        open(tu, "w").write(translation_unit())
        ptx = os.path.join(scratch, "wrappers.ptx")
        cmd = [args.nvcc, "-ptx", "-gencode", "arch=compute_100a,code=sm_100a", "-std=c++17",
               "--expt-relaxed-constexpr", "-I", tree, "-I", os.path.join(args.src, "kernels", "common"),
               "-I", os.path.join(args.src, "include"), tu, "-o", ptx]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print("the wrappers did not compile:\n" + run.stderr[-4000:], file=sys.stderr)
            return 2
        got, has_funcs = entries(open(ptx).read())
        defined, header_problems = header_functions(os.path.join(tree, "sm100a_ptx.cuh"))
    bad = 0
    for problem in header_problems:
        print(problem)
        bad += 1
    if has_funcs:
        print("CALLED the PTX has a .func: a wrapper calls a function that was not inlined, whose instructions "
              "no kernel here shows; make it __forceinline__")
        bad += 1
    listed = {name for name, _, _ in TABLE}
    for name in sorted(defined):
        if name not in listed and name not in NO_INSTRUCTION:
            print(f"UNLISTED {name}: a function of sm100a_ptx.cuh in neither the table nor NO_INSTRUCTION")
            bad += 1
    expected = [(name, want) for name, _, want in TABLE] + [(name, []) for name in NO_INSTRUCTION]
    for name, want in expected:
        entry = got.get(f"w_{name}")
        if entry is None:
            print(f"MISSING {name}: no kernel w_{name} in the PTX")
            bad += 1
            continue
        have, branches = entry
        if have != want:
            print(f"MISMATCH {name}: emits {have or 'nothing of the checked families'}, the table says {want or 'nothing'}")
            bad += 1
        elif branches and name not in LOOPS:
            print(f"GUARDED {name}: its instruction is behind a branch, a call or a predicate; a wrapper issues it "
                  "unconditionally")
            bad += 1
    print(f"{len(TABLE)} wrappers in the table, {len(defined)} functions in the header; {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
