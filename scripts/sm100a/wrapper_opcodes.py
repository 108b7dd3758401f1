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

  wrapper_opcodes.py [--src DIR] [--nvcc PATH] [--plant NAME] [--peer-tk DIR]

The specification (TABLE, OUTPUTS, NO_INSTRUCTION, PEER_TABLE) is wrapper_table.py, the planted
defects and same-meaning rewrites wrapper_plants.py, and the reading of the PTX ptx_reader.py.

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
sleep-never-ends, wait-back-edge-to-exit, wait-returns-on-success, acquire-load-added,
underscore-asm-no-clobber, digit-separator-hides-asm, device-macro-wrapper, asm-in-macro;
and the same-meaning rewrites of EQUIVALENTS, on which it must stay quiet.
--peer-tk DIR reads ThunderKittens' sm_100a wrappers (PEER_TABLE) the same way; it must find
nothing there (scripts/peers/fetch_tk_blackwell.sh fetches them). With --plant tk-NAME it reads
a copy with one of PEER_PLANTS' defects, and must report it.
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

from ptx_reader import WAIT_LOOP, entries, normalise
from wrapper_plants import EQUIVALENTS, PEER_PLANTS, PLANTS, plant_peer
from wrapper_table import (BOOL_PARAMS, LOOPS, NO_INSTRUCTION, OUTPUTS, PARAM_NAMES, PEER_LOOPS, PEER_OUTPUTS,
                           PEER_TABLE, PURE, SIGNATURE, TABLE, every_entry)


def translation_unit(table=None, prologue=('#include "sm100a_ptx.cuh"', "using namespace vsa::sm100a;"), pure=PURE):
    """One kernel per call, all with SIGNATURE, so PARAM_NAMES name their operands' sources
    (w_<name>), and for each wrapper that is not pure one that calls it twice (t_<name>)."""
    lines = list(prologue)
    if table is None:
        table = every_entry()
    for name, call, want, _ in table:
        lines.append(f'extern "C" __global__ void w_{name}{SIGNATURE} {{ {call}; }}')
        if want and name not in pure:
            lines.append(f'extern "C" __global__ void t_{name}{SIGNATURE} {{ {call}; {call}; }}')
    return "\n".join(lines) + "\n"


# C++ literals: a raw string (R"d( ... )d", may span lines), a string, a character literal (not
# a digit separator such as 1'000: a quote right after a letter, digit or _ is not one).
STRING_LITERAL = (r'R"(?P<delim>[^()\\\s"]{0,16})\((?s:.*?)\)(?P=delim)"' + r'|"(?:\\.|[^"\\\n])*"'
                  + r"|(?<![\w'])'(?:\\.|[^'\\\n])*'")
LITERAL = re.compile(STRING_LITERAL)


def strip_comments(text):
    """C++ comments removed, string and character literals kept as they are (a // inside an asm
    string stays)."""
    return re.sub(STRING_LITERAL + r"|//[^\n]*|/\*.*?\*/",
                  lambda m: " " if m.group(0)[0] == "/" else m.group(0), text, flags=re.S)


def closing_paren(text, i):
    """The offset of the parenthesis that closes the one at text[i], skipping string and character
    literals (a parenthesis inside an asm template is not the statement's)."""
    depth = 0
    while i < len(text):
        literal = LITERAL.match(text, i)
        if literal:
            i += len(literal.group(0))
            continue
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
        i += 1
    return len(text) - 1


# A function definition in comment-free source: specifiers and return type (after the last ;, {
# or }), the name, the parameter list (no braces or semicolons), an optional const and noexcept,
# the body's {.
FUNCTION_DEFINITION = re.compile(r"([^;{}]*?)\b(\w+)\s*\(([^;{}]*?)\)\s*(?:const\s*)?(?:noexcept\s*)?\{")
NOT_FUNCTIONS = ("if", "for", "while", "switch", "return", "constexpr", "sizeof", "decltype", "catch")


def function_definitions(text):
    """(name's offset, specifiers, name, parameters) of every function definition in `text`
    (comments removed), in order. The one reading of definitions both checks below use."""
    return [(m.start(2), m.group(1), m.group(2), m.group(3)) for m in FUNCTION_DEFINITION.finditer(text)
            if m.group(2) not in NOT_FUNCTIONS]


def header_functions(path):
    """(name -> how many definitions, problems) for the header: every definition (a parameter
    list followed by a body) whose specifiers include __device__, in any order, whatever its
    return type. Problems: a __device__ the scan could not read as such a definition (a macro,
    a brace in a parameter list), a definition without __device__ (a macro standing for it, such
    as _CCCL_DEVICE), or a parameter with a default value (the table compiles one call per name,
    so another path through a default would go unchecked)."""
    text = strip_comments(open(path).read())
    names, problems, read = {}, [], 0
    for _, specifiers, name, parameters in function_definitions(text):
        if "__device__" not in specifiers:
            if "#" in specifiers:  # a macro's text: the count of __device__ below reports it
                continue
            problems.append(f"UNREAD {name}: a function without __device__ in its specifiers (a macro such as "
                            "_CCCL_DEVICE, or a host function); the check compiles __device__ functions: spell it out")
            continue
        read += specifiers.count("__device__")
        names[name] = names.get(name, 0) + 1
        if "=" in parameters:
            problems.append(f"DEFAULT {name}: a parameter with a default value; give every call its arguments")
    total = len(re.findall(r"\b__device__\b", re.sub(STRING_LITERAL, '""', text)))
    if total != read:
        problems.append(f"UNREAD {total - read} of the header's {total} __device__ declarations are not function "
                        "definitions this check can read (a macro, a brace in a parameter list): write them out")
    for name, count in names.items():
        if count > 1:
            problems.append(f"OVERLOAD {name}: defined {count} times; the table compiles one of them")
    return names, problems


def local_headers(path, seen=None):
    """The header and every header it includes with quotes, found beside it, recursively."""
    seen = set() if seen is None else seen
    if path in seen or not os.path.isfile(path):
        return seen
    seen.add(path)
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path).read(), re.M):
        local_headers(os.path.normpath(os.path.join(os.path.dirname(path), name)), seen)
    return seen


def asm_sections(statement):
    """The colon-separated sections of an asm statement's parentheses (template, outputs,
    inputs, clobbers), split outside string literals and nested parentheses."""
    body = statement[statement.index("(") + 1:statement.rindex(")")]
    sections, current, depth, i = [], "", 0, 0
    while i < len(body):
        literal = LITERAL.match(body, i)
        if literal:
            current += literal.group(0)
            i += len(literal.group(0))
            continue
        ch = body[i]
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == ":" and depth == 0:
            sections.append(current)
            current = ""
        else:
            current += ch
        i += 1
    return sections + [current]


def asm_problems(path, pure):
    """Every inline asm of the header, and of the local headers it includes, outside the `pure`
    functions must be volatile (`asm volatile` / `__asm__ __volatile__`) with "memory" in its
    clobber list: without volatile the compiler may merge or drop it (a try_wait whose result
    it already knows), without the clobber it may move memory accesses across it (a load of
    what a wait made visible, hoisted above the wait). The compiled code shows neither reliably
    (nvcc 13.0 kept loads in place around a clobber-less asm volatile), so the source is read.
    keep_after_wait must also name its registers read-write ("+r"), or it orders nothing."""
    problems = []
    for header in sorted(local_headers(path)):
        text = strip_comments(open(header).read())
        where = "" if header == path else f" ({os.path.basename(header)})"
        functions = [(start, name) for start, _, name, _ in function_definitions(text)]
        # asm keywords outside literals: a literal's text is blanked (same length) for the search
        code = re.sub(STRING_LITERAL, lambda lit: '"' + " " * (len(lit.group(0)) - 2) + '"', text)
        # A macro's body is not a function this check reads (its owner would be whatever function
        # comes before it): an asm there is refused.
        for macro in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?:[^\n]*\\\n)*[^\n]*", code, re.M):
            if re.search(r"\b(?:__asm__|__asm|asm)\b", macro.group(0)):
                problems.append(f"ASM {macro.group(1)}{where}: an asm in a macro; write it in a function")
        for m in re.finditer(r"\b(?:__asm__|__asm|asm)\b", code):
            owner = next((n for s, n in reversed(functions) if s < m.start()), "?")
            statement = text[m.start():closing_paren(text, text.index("(", m.start())) + 1]
            if owner in pure:
                continue
            if not re.match(r"(?:__asm__|__asm|asm)\s+(?:volatile|__volatile__)\b", statement):
                problems.append(f"ASM {owner}{where}: an asm without volatile; the compiler may merge or drop it")
            sections = asm_sections(statement)
            if len(sections) < 4 or '"memory"' not in sections[3]:
                problems.append(f"ASM {owner}{where}: an asm without a \"memory\" clobber; memory accesses may move "
                                "across it")
            if owner == "keep_after_wait" and '"+r"' not in statement:
                problems.append("ASM keep_after_wait: its registers are not read-write (\"+r\"), so it orders nothing")
    return problems


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


def check_peer(nvcc, tk_dir, plant=None):
    """The same reading of ThunderKittens' own sm_100a wrappers (code nobody here wrote), against
    PEER_TABLE; it must find nothing. With `plant` (PEER_PLANTS), on a copy of the headers with
    that defect, where it must find it."""
    if not os.path.isfile(os.path.join(tk_dir, "include", "kittens.cuh")):
        print(f"no include/kittens.cuh under {tk_dir}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        include = os.path.join(tk_dir, "include")
        if plant:
            include = os.path.join(scratch, "include")
            shutil.copytree(os.path.join(tk_dir, "include"), include)
            error = plant_peer(include, plant)
            if error:
                print(error, file=sys.stderr)
                return 2
        tu, ptx = os.path.join(scratch, "peer.cu"), os.path.join(scratch, "peer.ptx")
        open(tu, "w").write(translation_unit(PEER_TABLE, ('#include "kittens.cuh"',)))
        run = compile_ptx(nvcc, tu, [include], ptx, "c++20",
                          ("KITTENS_HOPPER", "KITTENS_BLACKWELL"))
        if run.returncode != 0:
            print("the peer's wrappers did not compile:\n" + run.stderr[-4000:], file=sys.stderr)
            return 2
        got, _ = entries(open(ptx).read(), PARAM_NAMES, BOOL_PARAMS)
    bad = compare(PEER_TABLE, got, PEER_LOOPS, PEER_OUTPUTS)
    print(f"{len(PEER_TABLE)} ThunderKittens wrappers read; {bad} problems")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--plant", choices=sorted(PLANTS) + sorted(EQUIVALENTS) + sorted(PEER_PLANTS))
    ap.add_argument("--peer-tk", metavar="DIR", help="read ThunderKittens' wrappers (a checkout) instead")
    args = ap.parse_args()
    if not os.path.exists(args.nvcc):
        print(f"no nvcc at {args.nvcc}", file=sys.stderr)
        return 2
    if (args.plant in PEER_PLANTS) != bool(args.peer_tk) and args.plant:
        print(f"--plant {args.plant}: the tk- plants go with --peer-tk, the others without", file=sys.stderr)
        return 2
    if args.peer_tk:
        return check_peer(args.nvcc, args.peer_tk, args.plant)
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
        got, has_funcs = entries(open(ptx).read(), PARAM_NAMES, BOOL_PARAMS)
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
    bad += compare(every_entry(), got, LOOPS, OUTPUTS, PURE)
    print(f"{len(TABLE)} wrappers in the table, {len(defined)} functions in the header; {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
