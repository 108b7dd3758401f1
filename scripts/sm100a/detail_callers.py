#!/usr/bin/env python3
"""Nothing outside the protocol cursor calls sm100a_ptx.cuh's `detail` instructions
(issue 18, finding 1), except the places listed in ALLOWED with the reason.

Scans kernels/, tests/ and app/ for a `detail::NAME(` call, a `using` of detail, or a
reopened `namespace detail` that names one of the wrapped instructions. Exit 0 clean,
1 with each offending call as FILE:LINE: NAME, 2 when sm100a_ptx.cuh has no detail part.
"""
import os
import re
import sys

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
PTX = os.path.join(SRC, "kernels", "sm100a", "sm100a_ptx.cuh")

# Files that define or bind the instructions: the PTX wrappers, the execution model's
# implementation of the same wrappers (VSA_SM100A_MODEL builds), and the cursor.
OWNERS = {"kernels/sm100a/sm100a_ptx.cuh", "kernels/sm100a/model/ptx_model.hpp", "kernels/sm100a/protocol_cursor.cuh"}
# (file, instruction): why it may call the instruction directly.
ALLOWED = {
    ("kernels/sm100a/kernel_prologue.cuh", name): "the kernel set-up before the warps take their roles: no "
    "role script describes it (barrier init fence, tensor-map prefetch, TMEM allocation, the fences around the "
    "one CTA barrier that publishes the TMEM base)"
    for name in ("mbar_init_fence", "prefetch_tensor_map", "tmem_alloc", "tmem_relinquish_alloc_permit",
                 "tc_fence_before_sync", "tc_fence_after_sync")
}


def detail_names():
    text = open(PTX).read()
    start = text.find("namespace detail {")
    end = text.find("}  // namespace detail")
    if start < 0 or end < 0:
        return None
    names = set(re.findall(r"__device__ __forceinline__ \w+ (\w+)\(", text[start:end]))
    # The cursor's own detail: moving past an op without executing it.
    return names | {"advance"} if names else names


def strip_comments(text):
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def main():
    names = detail_names()
    if not names:
        print(f"{PTX}: no `namespace detail {{ ... }}  // namespace detail` part", file=sys.stderr)
        return 2
    call = re.compile(r"\bdetail::(" + "|".join(sorted(names)) + r")\s*\(")
    bare = re.compile(r"(?<![\w:.])(" + "|".join(sorted(names)) + r")\s*\(")
    findings = []
    for top in ("kernels", "tests", "app"):
        for root, _, files in os.walk(os.path.join(SRC, top)):
            for f in files:
                if not f.endswith((".cuh", ".cu", ".hpp", ".cpp", ".h")):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, SRC)
                if rel in OWNERS:
                    continue
                code = strip_comments(open(path, errors="replace").read())
                if "sm100a" not in rel and "sm100a_ptx" not in code:
                    continue
                line = lambda off: code.count("\n", 0, off) + 1  # noqa: E731
                for m in re.finditer(r"using\s+(?:namespace\s+)?[\w:]*detail\b", code):
                    findings.append(f"{rel}:{line(m.start())}: a using-directive or -declaration of detail "
                                    "(hides the callers)")
                for m in re.finditer(r"namespace\s+detail\s*\{", code):
                    body = code[m.end():]
                    if bare.search(body[:body.find("}")] if "}" in body else body):
                        findings.append(f"{rel}:{line(m.start())}: reopens namespace detail around an instruction")
                for m in call.finditer(code):
                    if (rel, m.group(1)) not in ALLOWED:
                        findings.append(f"{rel}:{line(m.start())}: {m.group(1)} called outside the protocol cursor")
    for f in findings:
        print(f)
    print(f"{len(names)} detail instructions; {len(findings)} calls outside the cursor and the allowed places")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
