#!/usr/bin/env python3
"""Do app/'s libraries include only what they link? (README.md, "Layout")

Every app/<folder>/CMakeLists.txt declares its library with
`vsa_app_library(vsa_<name> SOURCES ... DEPS ...)`. A file in app/<folder>/ may include
"<other>/x.hpp" only when vsa_<other> is <folder>'s own library or one it links,
directly or through another app library; app/commands/ and app/main.cpp may include
everything. A header outside these folders ("vsa/...", "build_info.hpp") is not checked.
An include against the layering is what CMake cannot see: every library has the whole
app/ on its include path, so the build would still link, with the cycle back.
Exit 0 clean, 1 violations (each printed as FILE:LINE), 2 a folder without a library.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "app"
LIBRARY = re.compile(r"vsa_app_library\(\s*(vsa_\w+)(.*?)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def libraries():
    """folder -> (library, set of linked app libraries)"""
    found = {}
    for cmake in sorted(ROOT.glob("*/CMakeLists.txt")):
        m = LIBRARY.search(cmake.read_text())
        if not m:
            continue
        deps = set()
        if "DEPS" in m.group(2):
            deps = set(re.findall(r"vsa_\w+", m.group(2).split("DEPS", 1)[1]))
        found[cmake.parent.name] = (m.group(1), deps)
    return found


def main():
    libs = libraries()
    by_name = {lib: folder for folder, (lib, _) in libs.items()}

    def closure(folder):
        seen, todo = {libs[folder][0]}, list(libs[folder][1])
        while todo:
            lib = todo.pop()
            if lib in seen or lib not in by_name:
                continue
            seen.add(lib)
            todo.extend(libs[by_name[lib]][1])
        return {by_name[lib] for lib in seen if lib in by_name}

    bad = 0
    for path in sorted(ROOT.rglob("*")):
        if path.suffix not in {".cpp", ".hpp", ".in"}:
            continue
        folder = path.relative_to(ROOT).parts[0]
        if folder in {"commands", "main.cpp"}:
            continue
        if folder not in libs:
            print(f"{path.relative_to(ROOT.parent)}: app/{folder}/ has no vsa_app_library", file=sys.stderr)
            return 2
        allowed = closure(folder)
        text = path.read_text()
        for m in INCLUDE.finditer(text):
            target = m.group(1)
            if target in libs and target not in allowed:
                line = text.count("\n", 0, m.start()) + 1
                print(f"{path.relative_to(ROOT.parent)}:{line}: includes {target}/ but {libs[folder][0]} "
                      f"does not link {libs[target][0]}")
                bad += 1
    if bad:
        print(f"check_layers: {bad} includes against the layering", file=sys.stderr)
        return 1
    print(f"check_layers: {len(libs)} app libraries, every include follows the links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
