#!/usr/bin/env python3
"""Normalised disassembly of fastpath's kernels, for comparing two builds.

The helper of benchmarks/objdump-kernels.sh, which builds the binary and
its linker map; see there for the usage. Two modes:

  objdump-kernels.py dump --binary BIN [--map MAP] OUTDIR
  objdump-kernels.py compare DIR_A DIR_B

`dump` finds every function placed in a section named `.text.fastpath.*`
and writes its normalised disassembly to OUTDIR/<tier>.<primitive>.s, and
that of every function of the binary such a kernel calls or jumps to
directly (one level: the callees' own callees are only named) to
OUTDIR/helpers/<tier>.<primitive>.callee<N>.s. It prints one line per file
(name, instruction count, hash of the normalised text, symbol, section) and
writes the same lines to OUTDIR/summary.txt, which `compare` ignores.

Where the kernels are: the linker (LLD, and GNU ld alike) merges every
`.text.*` input section into the output `.text`, so a linked binary has no
`.text.fastpath.*` section headers; the input sections and their addresses
are in the linker map (`-Wl,-Map=`). When the binary does still have such
sections (linked with a script that keeps them) they are used and no map
is needed; an object file would not do, its symbols being relative to
their sections.

Normalisation, so that only a change of the code itself shows:
  * no addresses and no raw bytes; one instruction a line, spaces collapsed;
  * a branch or call target inside the function becomes `+0x<offset>` from
    its start (the kernels start on a 64-byte boundary, so the offsets are
    those the CPU's fetch sees);
  * a kernel's direct call or jump to another function of the binary
    becomes `<callee N>`, the N-th distinct callee in the order of the
    calls, whose code is in its own file: renaming or moving the callee
    changes nothing, changing its code changes its file;
  * any other target outside becomes `<kernel TIER.PRIMITIVE>` if it is a
    kernel (which survives renaming the function), else the demangled
    symbol name without the crate hashes (legacy `::h<16 hex>`, v0
    `[<hex>]`, LTO's `.llvm.<digits>`), `+0x<offset>` if not at its start;
  * a rip-relative operand becomes `rip+<data ...>` (or `<got ...>`,
    `<kernel ...>`, `<code ...>`): in a read-only section
    without relocations (.rodata) the referenced bytes themselves, as many as
    the operand's size (`XMMWORD PTR` 16, `DWORD BCST` 4, ...), so a changed
    constant shows; elsewhere (a GOT entry: the symbol its relocation names;
    writable data: the symbol's name) or when the size is unknown (`lea`)
    only what is stable across layouts. Compiler-made names (`anon.*`,
    `alloc_*`, ...) carry hashes and offsets into merged blobs, so they
    become `anon`.
"""

import argparse
import bisect
import difflib
import hashlib
import os
import re
import subprocess
import sys

SECTION_PREFIX = ".text.fastpath."

PRIMITIVES = {
    "checksum",
    "copy_checksum",
    "fill",
    "fill_nontemporal",
    "fill_or_stream",
    "copy",
    "copy_or_hand_off",
}
TIERS = {"portable", "sse2", "avx2", "avx512", "avx512-vnni", "neon"}

# What the sections name a tier by, besides the tier itself: the fill and
# copy macros name the vector type they are instantiated on.
TIER_ALIASES = {
    "words": "portable",
    "bytes": "portable",
    "avx512vnni": "avx512-vnni",
    "avx512_vnni": "avx512-vnni",
}

SIZES = {
    "BYTE": 1,
    "WORD": 2,
    "DWORD": 4,
    "QWORD": 8,
    "TBYTE": 10,
    "XMMWORD": 16,
    "YMMWORD": 32,
    "ZMMWORD": 64,
}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def tier_name(raw):
    t = raw.lower()
    t = TIER_ALIASES.get(t, t)
    if t not in TIERS:
        for suffix in ("splat", "vector", "chunk"):
            if t.endswith(suffix) and len(t) > len(suffix):
                t = t[: -len(suffix)]
                break
        t = TIER_ALIASES.get(t, t)
    return t


def kernel_name(section):
    """`<tier>.<primitive>` from `.text.fastpath.<primitive>.<tier>` or
    `.text.fastpath.<tier>.<primitive>`; `None` if neither part is a known
    primitive."""
    rest = section[len(SECTION_PREFIX):]
    parts = rest.split(".")
    if len(parts) != 2:
        return None
    a, b = parts

    def is_primitive(p):
        return p in PRIMITIVES or (p.endswith("_vnni") and p[:-5] in PRIMITIVES)

    if is_primitive(a):
        prim, tier = a, b
    elif is_primitive(b):
        prim, tier = b, a
    else:
        return None
    tier = tier_name(tier)
    if prim.endswith("_vnni"):
        prim = prim[:-5]
        if tier == "avx512":
            tier = "avx512-vnni"
        elif not tier.endswith("vnni"):
            tier = tier + "-vnni"
    return f"{tier}.{prim}"


class Elf:
    """What readelf says of the binary: sections, symbols, relocations."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = f.read()
        self.sections = []  # (name, addr, offset, size, type, flags)
        for line in run(["readelf", "-SW", path]).splitlines():
            m = re.match(
                r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s",
                line,
            )
            if m:
                name, typ, addr, off, size, flags = m.groups()
                self.sections.append(
                    (name, int(addr, 16), int(off, 16), int(size, 16), typ, flags)
                )
        self.has_symtab = any(s[0] == ".symtab" for s in self.sections)
        self.symbols = []  # (addr, size, type, name)
        seen = set()
        for line in run(["readelf", "-sW", path]).splitlines():
            m = re.match(
                r"\s*\d+:\s+([0-9a-f]+)\s+(\d+|0x[0-9a-f]+)\s+(\w+)\s+\w+\s+\w+\s+(\w+)\s+(\S+)",
                line,
            )
            if not m:
                continue
            addr, size, typ, ndx, name = m.groups()
            if ndx in ("UND", "ABS") or typ in ("SECTION", "FILE"):
                continue
            size = int(size, 0)
            key = (int(addr, 16), size, name)
            if key in seen:
                continue
            seen.add(key)
            self.symbols.append((int(addr, 16), size, typ, name))
        self.symbols.sort()
        self.sym_addrs = [s[0] for s in self.symbols]
        # Relocations of the GOT and other data: address -> target.
        self.relocs = {}
        for line in run(["readelf", "-rW", path]).splitlines():
            m = re.match(
                r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+(R_\w+)\s*(?:([0-9a-f]+)\s+(\S+)\s*\+\s*([0-9a-f]+)|([0-9a-f]+))?\s*$",
                line,
            )
            if not m:
                continue
            off, typ, _symval, symname, _add, addend = m.groups()
            off = int(off, 16)
            if symname:
                self.relocs[off] = ("sym", symname.split("@")[0])
            elif addend:
                self.relocs[off] = ("addr", int(addend, 16))

    def section_of(self, addr):
        for s in self.sections:
            if s[1] and s[1] <= addr < s[1] + s[3]:
                return s
        return None

    def read(self, addr, size):
        s = self.section_of(addr)
        if s is None or s[4] == "NOBITS" or addr + size > s[1] + s[3]:
            return None
        off = s[2] + addr - s[1]
        return self.data[off : off + size]

    def symbol_at(self, addr):
        """The symbol containing `addr` (the innermost of a size), or one
        that starts there: (addr, size, type, name) or None."""
        i = bisect.bisect_right(self.sym_addrs, addr)
        best = None
        j = i - 1
        while j >= 0 and j >= i - 64:
            a, size, typ, name = self.symbols[j]
            if a == addr or a <= addr < a + size:
                if best is None or (typ in ("FUNC", "OBJECT") and best[2] not in ("FUNC", "OBJECT")):
                    best = self.symbols[j]
                if a == addr and typ in ("FUNC", "OBJECT"):
                    break
            j -= 1
        return best

    def functions_in(self, start, end):
        out = {}
        for a, size, typ, name in self.symbols:
            if start <= a < end and typ == "FUNC":
                # Aliases: one function, the first name in sorted order.
                if a not in out or name < out[a][1]:
                    out[a] = (size, name)
        return sorted((a, s, n) for a, (s, n) in out.items())


def kernel_sections(elf, map_path):
    """[(section name, start, end)] of the `.text.fastpath.*` input
    sections: from the binary's own section headers, else the linker map."""
    own = [
        (s[0], s[1], s[1] + s[3]) for s in elf.sections if s[0].startswith(SECTION_PREFIX)
    ]
    if own:
        return own, "section headers"
    if not map_path:
        sys.exit(
            "objdump-kernels: the binary has no .text.fastpath.* sections (the linker "
            "merged them into .text) and no linker map was given (--map)"
        )
    found = []
    lines = open(map_path, encoding="utf-8", errors="replace").read().splitlines()
    # LLD: "VMA LMA Size Align Out In Symbol", an input section as
    #   <vma> <lma> <size> <align>         <file>:(<section>)
    lld = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+.*:\((\.text\.fastpath\.[^)\s]+)\)\s*$")
    # GNU ld: " <section>" then, on the same or the next line,
    #   0x<vma> 0x<size> <file>
    gnu_name = re.compile(r"^ (\.text\.fastpath\.\S+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+\S.*)?$")
    gnu_next = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+\S")
    for i, line in enumerate(lines):
        m = lld.match(line)
        if m:
            addr, size, name = int(m.group(1), 16), int(m.group(2), 16), m.group(3)
            found.append((name, addr, addr + size))
            continue
        m = gnu_name.match(line)
        if m:
            name = m.group(1)
            if m.group(2):
                addr, size = int(m.group(2), 16), int(m.group(3), 16)
            elif i + 1 < len(lines) and gnu_next.match(lines[i + 1]):
                n = gnu_next.match(lines[i + 1])
                addr, size = int(n.group(1), 16), int(n.group(2), 16)
            else:
                continue
            found.append((name, addr, addr + size))
    if not found:
        sys.exit(f"objdump-kernels: no .text.fastpath.* input section in {map_path}")
    return [f for f in found if f[2] > f[1]], "linker map"


HASH_RES = [
    (re.compile(r"\.llvm\.\d+"), ""),
    (re.compile(r"::h[0-9a-f]{16}\b"), ""),
    (re.compile(r"\[[0-9a-f]+\]"), ""),
]
ANON = re.compile(r"^(anon\.|alloc_|\.L|str\.\d|__unnamed_|GCC_except_table)")


class Demangler:
    def __init__(self):
        self.cache = {}

    def prime(self, names):
        todo = sorted({n for n in names if n not in self.cache})
        if not todo:
            return
        # c++filt (binutils 2.40) demangles Rust legacy and v0 names; one
        # name a line keeps its output aligned with its input.
        out = subprocess.run(
            ["c++filt"], input="\n".join(todo) + "\n", check=True, capture_output=True, text=True
        ).stdout.splitlines()
        for n, d in zip(todo, out):
            self.cache[n] = d

    def __call__(self, name):
        if name not in self.cache:
            self.prime([name])
        d = self.cache[name]
        for rx, rep in HASH_RES:
            d = rx.sub(rep, d)
        return d


INSN = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
BRANCH_MN = re.compile(r"^(j[a-z]+|call|loop[a-z]*|xbegin|bnd\s+j[a-z]+|notrack\s+j[a-z]+)$")
DIRECT = re.compile(r"^([0-9a-f]+)(?:\s+<[^>]*>)?$")
RIP = re.compile(r"rip\s*[+-]\s*0x[0-9a-f]+")
SIZE_KW = re.compile(r"\b(BYTE|WORD|DWORD|QWORD|TBYTE|XMMWORD|YMMWORD|ZMMWORD)\s+(PTR|BCST)\s+(?:[a-z]s:)?\[rip")


class Normaliser:
    def __init__(self, elf, demangle, kernel_at):
        self.elf = elf
        self.demangle = demangle
        self.kernel_at = kernel_at  # start address -> kernel name

    def name_of(self, addr, objdump_hint=None):
        """A layout-independent name for the code or data at `addr`."""
        if addr in self.kernel_at:
            return f"kernel {self.kernel_at[addr]}"
        sym = self.elf.symbol_at(addr)
        if sym is None:
            if objdump_hint:
                # A PLT entry has no symbol; objdump names it `memcpy@plt`.
                hint = re.sub(r"[+-]0x[0-9a-f]+$", "", objdump_hint)
                return self.demangle(hint)
            s = self.elf.section_of(addr)
            return f"{s[0]}?" if s else "?"
        a, _size, _typ, name = sym
        if ANON.match(name):
            return "anon"
        d = self.demangle(name)
        return d if a == addr else f"{d}+{addr - a:#x}"

    def data_ref(self, addr, size):
        if addr in self.kernel_at:
            return f"kernel {self.kernel_at[addr]}"
        s = self.elf.section_of(addr)
        if s is None:
            return "data ?"
        name, _a, _o, _sz, typ, flags = s
        if name in (".got", ".got.plt"):
            r = self.elf.relocs.get(addr)
            if r is None:
                return f"data {name}"
            if r[0] == "sym":
                return f"got {self.demangle(r[1])}"
            return f"got {self.name_of(r[1])}"
        if "X" in flags:
            return f"code {self.name_of(addr)}"
        if "W" not in flags and name.startswith(".rodata") and size:
            b = self.elf.read(addr, size)
            if b is not None:
                return f"data {b.hex()}"
        if "W" in flags:
            sym = self.elf.symbol_at(addr)
            if sym is None or ANON.match(sym[3]):
                return "data"
            return f"data {self.name_of(addr)}"
        return "data"

    def helper_at(self, addr):
        """The function symbol starting at `addr` in `.text` if `addr` is
        not a kernel: a direct callee to follow."""
        if addr in self.kernel_at:
            return None
        s = self.elf.section_of(addr)
        sym = self.elf.symbol_at(addr)
        if s is None or s[0] != ".text" or sym is None or sym[0] != addr or sym[2] != "FUNC":
            return None
        return sym

    def function(self, start, end, number_callees=False):
        """(normalised lines, [(callee address, callee symbol)]) of [start,
        end). With `number_callees`, a direct call or jump to a function of
        the binary other than a kernel is written `<callee N>`, N counting
        the distinct callees in the order of their first call: the file then
        does not change when a callee is renamed or moved to another module,
        and the callee's own code is compared in its file of `helpers/`."""
        out = run(
            [
                "objdump",
                "-d",
                "--no-show-raw-insn",
                "-M",
                "intel",
                "-w",
                f"--start-address={start:#x}",
                f"--stop-address={end:#x}",
                self.elf.path,
            ]
        )
        lines = []
        callees = []
        rows = []
        for line in out.splitlines():
            m = INSN.match(line)
            if m:
                rows.append((int(m.group(1), 16), m.group(2)))
        for i, (addr, text) in enumerate(rows):
            comment = None
            if "#" in text:
                text, comment = text.split("#", 1)
                comment = comment.strip()
            text = re.sub(r"\s+", " ", text.strip())
            mn, _, ops = text.partition(" ")
            # Prefixes written as part of the mnemonic (`bnd jmp`, `rep stos`).
            if mn in ("bnd", "notrack", "rep", "repz", "repnz", "lock", "data16", "cs", "ds") and " " in ops:
                p2, _, ops2 = ops.partition(" ")
                mn, ops = f"{mn} {p2}", ops2
            target = None
            m = DIRECT.match(ops)
            if BRANCH_MN.match(mn) and m:
                target = int(m.group(1), 16)
                hint = re.search(r"<([^>]*)>", ops)
                if start <= target < end:
                    ops = f"+{target - start:#x}"
                else:
                    helper = self.helper_at(target) if number_callees else None
                    if helper is not None:
                        if target not in [c[0] for c in callees]:
                            callees.append((target, helper))
                        n = [c[0] for c in callees].index(target) + 1
                        ops = f"<callee {n}>"
                    else:
                        ops = f"<{self.name_of(target, hint.group(1) if hint else None)}>"
            elif RIP.search(ops):
                ref = None
                if comment:
                    cm = re.match(r"(?:0x)?([0-9a-f]+)", comment)
                    if cm:
                        ref = int(cm.group(1), 16)
                if ref is None:
                    # rip is the next instruction's address.
                    nxt = rows[i + 1][0] if i + 1 < len(rows) else end
                    dm = re.search(r"rip\s*([+-])\s*0x([0-9a-f]+)", ops)
                    disp = int(dm.group(2), 16)
                    if disp >= 1 << 63:
                        disp -= 1 << 64
                    ref = nxt + (disp if dm.group(1) == "+" else -disp)
                if start <= ref < end:
                    desc = f"+{ref - start:#x}"
                else:
                    sk = SIZE_KW.search(ops)
                    size = SIZES[sk.group(1)] if sk else 0
                    desc = self.data_ref(ref, size)
                ops = RIP.sub(f"rip+<{desc}>", ops)
            lines.append(f"{mn} {ops}".rstrip())
        return lines, callees


def digest(lines):
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()[:16]


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.:+-]+", "_", name).replace("::", ".")[:150]


def dump(args):
    elf = Elf(args.binary)
    if not elf.has_symtab:
        sys.exit(
            "objdump-kernels: the binary has no symbol table (stripped); build it with "
            "CARGO_PROFILE_RELEASE_STRIP=none"
        )
    sections, source = kernel_sections(elf, args.map)
    demangle = Demangler()
    demangle.prime([s[3] for s in elf.symbols])

    kernels = []  # (name, addr, size, symbol, section)
    unknown = []
    mismatched = []
    for sec, start, end in sorted(sections, key=lambda s: s[1]):
        base = kernel_name(sec)
        if base is None:
            unknown.append(sec)
            base = "unknown." + sec[len(SECTION_PREFIX):]
        elif base.split(".")[0] not in TIERS:
            print(f"warning: {sec}: tier {base.split('.')[0]} is not one of {sorted(TIERS)}", file=sys.stderr)
        funcs = elf.functions_in(start, end)
        if not funcs or funcs[0][0] != start:
            # A kernel is alone in its section and starts it: a map from
            # another link than the binary's would not say so.
            mismatched.append(sec)
        for k, (a, size, sym) in enumerate(funcs):
            name = base if k == 0 else f"{base}.{k}"
            if k:
                print(f"warning: more than one function in {sec}: {sym}", file=sys.stderr)
            kernels.append([name, a, size or end - a, sym, sec])
    if mismatched:
        sys.exit(
            f"objdump-kernels: no function starts {', '.join(mismatched)}: "
            f"is {args.map} the map of {args.binary}?"
        )
    for sec in unknown:
        print(f"warning: no tier and primitive recognised in {sec}", file=sys.stderr)
    names = [k[0] for k in kernels]
    for n in sorted({n for n in names if names.count(n) > 1}):
        print(f"warning: two kernels named {n}; telling them apart by symbol", file=sys.stderr)
        for k in kernels:
            if k[0] == n:
                k[0] = f"{n}.{safe(demangle(k[3]))}"
    kernels.sort()

    kernel_at = {k[1]: k[0] for k in kernels}
    norm = Normaliser(elf, demangle, kernel_at)
    os.makedirs(args.outdir, exist_ok=True)
    helpers_dir = os.path.join(args.outdir, "helpers")
    for d in (args.outdir, helpers_dir):
        # Stale files of an earlier run would compare as kernels.
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".s"):
                    os.remove(os.path.join(d, f))

    summary = []
    hsummary = []
    os.makedirs(helpers_dir, exist_ok=True)
    for name, a, size, sym, sec in kernels:
        lines, callees = norm.function(a, a + size, number_callees=True)
        with open(os.path.join(args.outdir, f"{name}.s"), "w") as f:
            f.write("\n".join(lines) + "\n")
        summary.append((name, len(lines), digest(lines), demangle(sym), sec))
        # One level: each callee's own calls are named, not followed. A
        # callee of several kernels has a file for each, so that the files
        # stay the same when the kernels stop sharing it or start to.
        for n, (target, fsym) in enumerate(callees, 1):
            hlines, _ = norm.function(target, target + fsym[1])
            hname = f"{name}.callee{n}"
            with open(os.path.join(helpers_dir, f"{hname}.s"), "w") as f:
                f.write("\n".join(hlines) + "\n")
            hsummary.append((hname, len(hlines), digest(hlines), demangle(fsym[3])))

    out = [
        f"# {len(kernels)} kernels (sections from the {source}), "
        f"{len(hsummary)} out-of-line direct callees; binary {args.binary}"
    ]
    width = max(len(r[0]) for r in summary + hsummary) + len("helpers/")
    for name, n, h, sym, sec in summary:
        out.append(f"{name:{width}} {n:5} insns  {h}  {sym}  [{sec}]")
    for hname, n, h, sym in hsummary:
        out.append(f"{'helpers/' + hname:{width}} {n:5} insns  {h}  {sym}")
    with open(os.path.join(args.outdir, "summary.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    return 0


def listing(d):
    files = {}
    for sub in ("", "helpers"):
        p = os.path.join(d, sub)
        if os.path.isdir(p):
            for f in os.listdir(p):
                if f.endswith(".s"):
                    files[os.path.join(sub, f[:-2]) if sub else f[:-2]] = os.path.join(p, f)
    return files


def diff_lines(la, lb):
    return sum(
        1
        for line in difflib.unified_diff(la, lb, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


# A symbol's module path: what moving an item to another module changes.
MODULE_PATH = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*::)+(?=[A-Za-z_])")


def compare(args):
    a, b = listing(args.dir_a), listing(args.dir_b)
    if not a or not b:
        sys.exit(f"objdump-kernels: no .s files in {args.dir_a if not a else args.dir_b}")
    differ = 0
    width = max(len(n) for n in list(a) + list(b)) + 1
    for name in sorted(set(a) & set(b)):
        la = open(a[name]).read().splitlines()
        lb = open(b[name]).read().splitlines()
        if la == lb:
            print(f"{name:{width}} identical")
            continue
        differ += 1
        changed = diff_lines(la, lb)
        # Whether only the module paths of named symbols differ (an item
        # moved, the code the same): said, but still a difference.
        strip = [MODULE_PATH.sub("", line) for line in la], [MODULE_PATH.sub("", line) for line in lb]
        note = ", only in symbols' module paths" if strip[0] == strip[1] else ""
        print(f"{name:{width}} differs: {changed} diff lines ({len(la)} -> {len(lb)} insns{note})")
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    for name in only_a:
        print(f"{name:{width}} only in {args.dir_a}")
    for name in only_b:
        print(f"{name:{width}} only in {args.dir_b}")
    same = len(set(a) & set(b)) - differ
    print(
        f"# {same} identical, {differ} different, {len(only_a)} only in {args.dir_a}, "
        f"{len(only_b)} only in {args.dir_b}"
    )
    return 0 if differ == 0 and not only_a and not only_b else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--binary", required=True)
    d.add_argument("--map")
    d.add_argument("outdir")
    c = sub.add_parser("compare")
    c.add_argument("dir_a")
    c.add_argument("dir_b")
    args = p.parse_args()
    return dump(args) if args.mode == "dump" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
