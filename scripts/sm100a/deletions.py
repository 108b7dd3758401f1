#!/usr/bin/env python3
"""Tries every deletion of a synchronising instruction from the sm100a role files and
requires each one to break the build (issue 18, finding 1).

A role file issues synchronising instructions only through the protocol cursor's steps
(kernels/sm100a/protocol_cursor.cuh), each of which executes its instruction and returns
the cursor past the table's op. Deleting a step means replacing the call with its cursor
argument (`auto c5 = fence_before(c4, n, steps);` becomes `auto c5 = c4;`): the cursor is
then one op behind and the next step's static_assert, or finish(), must fail. Raw calls
(a `detail::` instruction or `__syncthreads()` written in a role file) are deleted as whole
statements. Each mutated file is compiled alone, through the device pass only (`nvcc -ptx`
of the kernel translation units that instantiate it), in a scratch copy of kernels/. The
cursor's static_asserts fire in that pass's front end, so a detected deletion stops there
and costs no code generation; the host pass (`nvcc -cuda` runs it too, at twice the cost)
does not instantiate the role files' device bodies and detects nothing (measured: a deleted
wait_ld compiles through cudafe++).
The forward's role files are templates over the block size: a deletion counts as
detected only when both instances (blk64, blk128) fail.

Exit 0: every deletion failed to compile. Exit 1: some deletion compiled (each is listed
as UNDETECTED with file, line and call). Exit 2: bad usage, or the unmutated sources do
not compile.

--plant unbound-wait-ld shows that the check can fail: in the scratch copy, the cursor's
wait_ld step stops issuing tcgen05.wait::ld and bwd_dq_reduce.cuh issues it by a raw call
next to the step (the pre-issue-18 "marker" style). Deleting that raw call then compiles,
and the run must report it UNDETECTED.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Cursor steps that execute a synchronising instruction or a TMEM access.
STEPS = [
    "wait", "arrive_warp", "arrive_expect_tx", "commit", "fence_after", "fence_before", "fence_async",
    "tmem_load", "tmem_load_if", "tmem_store", "tmem_store_if", "wait_ld", "wait_st", "role_sync", "cta_sync",
    "store_commit", "wait_store_read", "wait_store_all", "tmem_dealloc",
]
# Raw synchronising calls a role file might make (it should not: sm100a_detail_callers).
RAW = re.compile(r"(?:(?:::)?(?:vsa::)?(?:sm100a::)?detail::\w+|__syncthreads)\s*\(")
STEP = re.compile(r"(?<![\w:.])(?:protocol::)?(" + "|".join(STEPS) + r")\s*\(")

# Role files and the kernel translation units that instantiate them. The forward's roles
# are templates over the block size: a deletion counts as detected only when it breaks
# both instances (fwd_launch.cu: blk64, fwd128_launch.cu: blk128).
FWD = ("fwd_launch.cu", "fwd128_launch.cu")
ROLE_FILES = {
    "fwd_producer.cuh": FWD, "fwd_mma.cuh": FWD, "fwd_softmax.cuh": FWD, "fwd_epilogue.cuh": FWD,
    "bwd_producer.cuh": ("bwd_launch.cu",), "bwd_mma.cuh": ("bwd_launch.cu",), "bwd_dsoftmax.cuh": ("bwd_launch.cu",),
    "bwd_dq_reduce.cuh": ("bwd_launch.cu",),
}


def strip_comments(text):
    """Same length, comments blanked (so offsets stay valid)."""
    out = list(text)
    for m in re.finditer(r"//[^\n]*|/\*.*?\*/", text, re.S):
        for i in range(m.start(), m.end()):
            if out[i] != "\n":
                out[i] = " "
    return "".join(out)


def call_end(code, open_paren):
    """Index just past the parenthesis closing the one at open_paren, and the end of the
    first argument."""
    depth, first_end = 0, None
    for i in range(open_paren, len(code)):
        ch = code[i]
        if ch in "([{<" and ch != "<":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1, first_end if first_end is not None else i
        elif ch == "," and depth == 1 and first_end is None:
            first_end = i
    raise ValueError("unbalanced call")


def deletions(text):
    """Every (start, end, replacement, label) deletion in one file."""
    code = strip_comments(text)
    found = []
    for m in STEP.finditer(code):
        # a definition or a declaration is not a call site
        before = code[max(0, m.start() - 40):m.start()]
        if re.search(r"(Next|void|auto)\s+$", before) and "=" not in before.split("\n")[-1]:
            continue
        open_paren = m.end() - 1
        end, first_end = call_end(code, open_paren)
        cursor = text[open_paren + 1:first_end].strip()
        found.append((m.start(), end, cursor, m.group(1)))
    for m in RAW.finditer(code):
        open_paren = m.end() - 1
        end, _ = call_end(code, open_paren)
        stmt_end = end
        while stmt_end < len(code) and code[stmt_end] in " \t":
            stmt_end += 1
        if stmt_end < len(code) and code[stmt_end] == ";":
            stmt_end += 1
        found.append((m.start(), stmt_end, "", text[m.start():open_paren].strip()))
    return sorted(found)


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


PLANT_CURSOR = ("    if (!planted_missing_wait_ld(role_of(C{}))) ::vsa::sm100a::detail::tmem_wait_ld();\n"
                "    (keep_after_wait(regs), ...);",
                "    (keep_after_wait(regs), ...);")
PLANT_ROLE = ("    auto c4 = wait_ld(c3, n, steps, r);",
              "    ::vsa::sm100a::detail::tmem_wait_ld();\n    auto c4 = wait_ld(c3, n, steps, r);")


def plant(tree):
    """The pre-issue-18 binding for one op: the step only advances, the role issues the
    instruction beside it."""
    for name, (old, new) in (("protocol_cursor.cuh", PLANT_CURSOR), ("bwd_dq_reduce.cuh", PLANT_ROLE)):
        path = os.path.join(tree, "sm100a", name)
        text = open(path).read()
        if old not in text:
            sys.exit(f"--plant: {name} no longer has the line the plant rewrites: {old.strip()!r}")
        open(path, "w").write(text.replace(old, new, 1))


def compile_tu(nvcc, tree, tu, out):
    cmd = [nvcc, "-ptx", "-gencode", "arch=compute_100a,code=sm_100a", "-std=c++17", "--expt-relaxed-constexpr",
           "-I", os.path.join(tree, "sm100a"), "-I", os.path.join(tree, "include"), "-I", os.path.join(tree, "common"),
           os.path.join(tree, "sm100a", tu), "-o", out]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.path.join(os.path.dirname(__file__), "..", ".."), help="repository root")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--files", nargs="*", help="role files to mutate (default: all)")
    ap.add_argument("--plant", choices=["unbound-wait-ld"], help="plant a binding gap the run must report")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="list the deletions and exit")
    args = ap.parse_args()

    kernels = os.path.join(os.path.abspath(args.src), "kernels")
    files = args.files or sorted(ROLE_FILES)
    for f in files:
        if f not in ROLE_FILES:
            print(f"unknown role file {f!r}; known: {', '.join(sorted(ROLE_FILES))}", file=sys.stderr)
            return 2
    if not os.path.exists(args.nvcc):
        print(f"no nvcc at {args.nvcc}", file=sys.stderr)
        return 2

    scratch = tempfile.mkdtemp(prefix="sm100a-deletions-")
    try:
        trees = []
        for j in range(max(1, args.jobs)):
            tree = os.path.join(scratch, f"tree{j}")
            for sub in ("sm100a", "include", "common"):
                shutil.copytree(os.path.join(kernels, sub), os.path.join(tree, sub))
            if args.plant:
                plant(tree)
            trees.append(tree)

        work = []
        for f in files:
            text = open(os.path.join(trees[0], "sm100a", f)).read()
            for start, end, repl, label in deletions(text):
                work.append((f, start, end, repl, label, line_of(text, start)))
        if args.list:
            for f, _, _, repl, label, line in work:
                print(f"{f}:{line}: {label}" + (f" -> {repl}" if repl else " (statement)"))
            return 0

        # The unmutated sources must compile, or every deletion would "fail".
        for tu in sorted({tu for f in files for tu in ROLE_FILES[f]}):
            rc, out = compile_tu(args.nvcc, trees[0], tu, os.path.join(scratch, "base.ptx"))
            if rc != 0:
                print(f"the unmutated {tu} does not compile:\n{out}", file=sys.stderr)
                return 2

        free = list(trees)

        def attempt(item):
            f, start, end, repl, label, line = item
            tree = free.pop()
            try:
                path = os.path.join(tree, "sm100a", f)
                original = open(path).read()
                open(path, "w").write(original[:start] + repl + original[end:])
                # Detected: every translation unit that instantiates the file fails.
                still_compiles, first_error = [], ""
                for tu in ROLE_FILES[f]:
                    rc, out = compile_tu(args.nvcc, tree, tu, os.path.join(tree, "out.ptx"))
                    if rc == 0:
                        still_compiles.append(tu)
                    elif not first_error:
                        first_error = next((l for l in out.splitlines() if "error" in l), "")
                open(path, "w").write(original)
                return item, still_compiles, first_error
            finally:
                free.append(tree)

        undetected = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(trees)) as pool:
            for (f, _, _, repl, label, line), still_compiles, err in pool.map(attempt, work):
                what = f"{f}:{line}: delete {label}" + (f" (cursor {repl})" if repl else "")
                if still_compiles:
                    undetected += 1
                    print(f"UNDETECTED {what}: {', '.join(still_compiles)} still compiles", flush=True)
                else:
                    print(f"detected   {what}: {err.strip()[:160]}", flush=True)
        print(f"{len(work)} deletions, {len(work) - undetected} detected, {undetected} undetected")
        return 1 if undetected else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
