#!/usr/bin/env python3
"""Checks vsa-bench JSON documents against the schemas in docs/schema/.

    check_schema.py [--schema report|suite|compare|fleet] FILE...

Without --schema, a document's own "schema" field picks the schema
("vsa-bench/report", "vsa-bench/compare", "vsa-bench/fleet"); a document without
one is read as a suite, except an NVBench export (`run --nvbench`: top-level "meta"
and "benchmarks"), which is NVBench's format, not ours: it is named and passed over
(tests/cli/nvbench_export.sh checks those). Every violation is printed with the JSON path of the
offending value. Exit 0 when every file is valid, 1 when one is not, 2 on bad
usage or an unreadable file. Needs the `jsonschema` package (PyPI; scripts/test.sh
installs it into .tools/venv).
"""
import argparse
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("check_schema.py: the Python package jsonschema is missing "
             "(scripts/test.sh installs it into .tools/venv; or: pip install jsonschema)")

SCHEMA_DIR = pathlib.Path(__file__).resolve().parent.parent / "docs" / "schema"
KINDS = ("report", "suite", "compare", "fleet")


def load_validator(kind):
    path = SCHEMA_DIR / f"{kind}.schema.json"
    schema = json.loads(path.read_text())
    # A schema that is itself malformed would let anything through: check it first.
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def is_nvbench_export(document):
    return (isinstance(document, dict) and "schema" not in document and "cases" not in document
            and "meta" in document and "benchmarks" in document)


def kind_of(document):
    tag = document.get("schema") if isinstance(document, dict) else None
    if tag is None:
        return "suite"
    if isinstance(tag, str) and tag.startswith("vsa-bench/") and tag[len("vsa-bench/"):] in KINDS:
        return tag[len("vsa-bench/"):]
    return None


def json_path(error):
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def not_json(constant):
    """NaN and Infinity: Python's json reads them, JSON (RFC 8259) and vsa-bench do not."""
    raise ValueError(f"{constant} is not JSON (RFC 8259 has no NaN or Infinity)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--schema", choices=KINDS, help="check every file against this schema")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    validators = {}
    bad = 0
    for name in args.files:
        try:
            document = json.loads(pathlib.Path(name).read_text(), parse_constant=not_json)
        except (OSError, ValueError) as e:
            print(f"{name}: cannot read: {e}", file=sys.stderr)
            return 2
        if args.schema is None and is_nvbench_export(document):
            print(f"{name}: an NVBench export (NVBench's format, no vsa-bench schema): not checked")
            continue
        kind = args.schema or kind_of(document)
        if kind is None:
            print(f"{name}: unknown \"schema\" {document.get('schema')!r} (expected vsa-bench/{'|'.join(KINDS)})")
            bad += 1
            continue
        if kind not in validators:
            validators[kind] = load_validator(kind)
        # For an anyOf (e.g. a clock reason), the branch that got furthest says most.
        errors = [jsonschema.exceptions.best_match([e]) for e in validators[kind].iter_errors(document)]
        errors.sort(key=lambda e: [str(p) for p in e.absolute_path])
        seen = set()  # the same fault seen through two branches of the schema is one finding
        errors = [e for e in errors if not ((json_path(e), e.message) in seen or seen.add((json_path(e), e.message)))]
        for e in errors[:20]:
            print(f"{name}: {kind}: {json_path(e)}: {e.message}")
        if len(errors) > 20:
            print(f"{name}: {kind}: ... {len(errors) - 20} more")
        if errors:
            bad += 1
        else:
            print(f"{name}: {kind}: valid")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
