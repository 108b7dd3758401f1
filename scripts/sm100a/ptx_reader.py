"""Reading the PTX of small wrapper kernels (scripts/sm100a/wrapper_opcodes.py): which
synchronising instructions each kernel emits, where each of their operands came from (traced back
to the kernel's parameters), where their results go, and what a wait loop does. Plain text
processing of nvcc -ptx output; no CUDA needed.
"""
import re

# The instruction families a wrapper may emit; anything of these families in a kernel body
# is compared with the table, so a wrapper that emits one more (or one fewer) also fails.
FAMILIES = ("tcgen05.", "mbarrier.", "cp.async.", "cp.reduce.async.", "fence.", "membar.", "bar.", "barrier.",
            "prefetch.tensormap", "st.shared", "st.async", "st.bulk", "st.release", "st.relaxed", "ld.acquire",
            "ld.relaxed", "red.", "atom.", "elect.", "tensormap.", "griddepcontrol.", "multimem.", "nanosleep",
            "ex2.", "cvt.rn.bf16x2")

# A wait loop must leave exactly when its wait completed and otherwise wait again (wait_loop).
WAIT_LOOP = {True: "exit", False: "wait again"}


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

    def __init__(self, widths, redefined, param_names, bool_params):
        self.defs, self.widths, self.redefined, self.outputs = {}, widths, redefined, 0
        self.param_names, self.bool_params = param_names, bool_params

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
            name = self.param_names[index] if index < len(self.param_names) else f"param{index}"
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
            return d[1] < len(self.param_names) and self.param_names[d[1]] in self.bool_params
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


# A harness load or store with a memory-ordering, volatile or cache-policy part is not plain
# data movement (ptxas takes the parts in any order, so a prefix cannot tell).
ORDERED = re.compile(r"\.(acquire|release|relaxed|volatile|mmio|weak|sys|gpu|cta|cluster|L2::\w+|L1::\w+)\b")


def wait_loop(statements, conditions, wait_at):
    """What a wait loop does after its wait, for each value of the wait's result (out#0): "exit"
    (it returns or runs off the end), "wait again" (it reaches the wait once more), "spin" (it
    comes back to a statement it already ran without reaching the wait), or "unknown" (a
    branch or guarded return on anything else). The loop is simulated statement by statement,
    so any shape that leaves exactly when the wait completed passes (ours and ThunderKittens').
    `conditions`: index -> (condition, target) for each branch and each guarded return (target
    None)."""
    outcome = {}
    for value in (True, False):
        pc, seen, result = wait_at + 1, set(), "exit"
        while pc < len(statements):
            if pc == wait_at:
                result = "wait again"
                break
            if pc in seen:
                result = "spin"
                break
            seen.add(pc)
            _, op, _ = statements[pc]
            taken = True
            if pc in conditions:
                condition, target = conditions[pc]
                taken = {"always": True, "out#0": value, "not(out#0)": not value}.get(condition)
                if taken is None:
                    result = f"unknown ({condition})"
                    break
            if op.startswith(("ret", "exit")) and taken:
                break
            if op.startswith("bra") and taken:
                pc = conditions[pc][1]
                continue
            pc += 1
        outcome[value] = result
    return outcome


def entries(ptx, param_names, bool_params=()):
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
        statements, labels, twice = [], {}, []
        for statement in re.split(r"[;\n]", body[body.index(")"):]):  # after the parameter list
            statement = re.sub(r"//.*", "", statement).strip().lstrip("{}()").strip()
            label = re.match(r"^(\$?\w+):\s*", statement)  # a label before the instruction
            if label:
                if label.group(1) in labels:  # ptxas takes one per scope; which one a branch means is unclear here
                    twice.append(label.group(1))
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
        sources = Sources(widths, {r for r, n in written.items() if n > 1}, param_names, bool_params)
        k = {"found": [], "inputs": [], "branches": False, "stores": [], "conditions": [],
             "unexpected": [f"label {name} defined twice" for name in twice]}
        at, first_family = {}, None
        for index, (guard, op, operands) in enumerate(statements):
            if op == ".reg":
                for declared in operands:
                    sources.defs.pop(declared, None)
                continue
            if op.startswith(("bra", "call")) or (guard and op.startswith(("ret", "exit", "trap"))):
                k["branches"] = True
            if op.startswith("bra") or (guard and op.startswith(("ret", "exit"))):
                condition = "always"
                if guard:
                    condition = str(sources.name(guard.group(2)))
                    condition = negate(condition) if guard.group(1) else condition
                target = labels.get(operands[0] if operands else "", len(statements)) if op.startswith("bra") else None
                at[index] = (condition, target)
                where = "return" if target is None else "back" if target <= index else "forward"
                k["conditions"].append(f"{where} if {condition}")
            if op.startswith(FAMILIES):
                first_family = index if first_family is None else first_family
                k["found"].append(op)
                k["inputs"].append(sources.inputs(operands))
                k["branches"] = k["branches"] or bool(guard)
            elif not op.startswith(ALLOWED) or (op.startswith(("ld.global", "st.global")) and ORDERED.search(op)):
                k["unexpected"].append(op)
            elif op.startswith("st.global"):
                if len(operands) != 2:
                    k["unexpected"].append(f"{op} with {len(operands)} operands")
                k["stores"].append(f"{sources.name(operands[0])}={sources.name(operands[-1])}")
            else:
                sources.record(op, operands)
        k["loop"] = wait_loop(statements, at, first_family) if first_family is not None else {}
        out[name] = k
    return out, bool(funcs)


def normalise(op):
    """One spelling for the forms the PTX ISA defines as the same instruction, so a rewrite that
    spells one (hand-written asm, another CCCL overload) is not reported: `.shared` is
    `.shared::cta`; mbarrier.arrive's default semantics and scope are `.release.cta` and
    try_wait's `.acquire.cta`; `barrier.sync.aligned` is `bar.sync`; a store's `.u32` / `.s32`
    is `.b32` (only the size matters). PTX ISA sections: "State Spaces" (`.shared`
    alone means `.shared::cta`), "mbarrier.arrive" and "mbarrier.test_wait/try_wait" (the
    defaults of `.sem` and `.scope`), "bar, barrier" (`bar.sync` is `barrier.sync.aligned`)."""
    op = re.sub(r"\.shared(?!::)", ".shared::cta", op)
    if op.startswith("mbarrier.arrive") and not re.search(r"\.(release|relaxed)\b", op):
        op = re.sub(r"^(mbarrier\.arrive(?:\.expect_tx)?)", r"\1.release.cta", op)
    if op.startswith("mbarrier.try_wait") and not re.search(r"\.(acquire|relaxed)\b", op):
        op = re.sub(r"^(mbarrier\.try_wait(?:\.parity)?)", r"\1.acquire.cta", op)
    op = re.sub(r"^barrier\.sync\.aligned$", "bar.sync", op)
    if op.startswith("st."):  # a store writes bits; a load's .s8 / .u8 extend differently, so stay apart
        op = re.sub(r"\.[us](8|16|32|64)$", r".b\1", op)
    return op
