"""Writes pe_cli/ops/paddle26_kinds.py: what Paddle 2.6.2 reads of a saved 2.x program that a value
does not show, for the op types pe registers, read from Paddle 2.6.2's op manifest
(/work/shared/api/paddle-2.6.2-ops.json: each op's attributes with their framework.proto types, and its op
version):

- KINDS: the attributes whose type a value does not give (FLOATS given as ints, LONG(S), STRINGS of an
  empty list, an INT where pe holds a dtype name...), by AttrType code;
- RENAMED: the attributes pe keeps under Fluid 1.8's name that Paddle 2.6.2 declares only under its own
  (flip's ``dims`` is 2.6's ``axis``: Attr.alias_of).

The op versions (Paddle 2.6.2 writes them all in a program's op_version_map) are not written here: the one
table is pe_cli/ops/op_versions.py's VERSIONS, which this script checks against the manifest's (one line
naming the op types that differ, exit 1).

    .venv/bin/python tools/paddle26_desc_kinds.py [MANIFEST]

tests/io/test_paddle26_pe_saved.py holds the models pe writes to these tables."""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "pe_cli", "ops", "paddle26_kinds.py")
CODES = dict(INT=0, FLOAT=1, STRING=2, INTS=3, FLOATS=4, STRINGS=5, BOOLEAN=6, BOOLEANS=7, LONG=9, LONGS=11)
CODES.update(FLOAT64S=12, FLOAT64=15)
# types a value shows as it is: an int is INT, a bool BOOLEAN, a str STRING, a list of ints INTS
_SHOWN = {"INT", "BOOLEAN", "STRING", "INTS"}


def tables(manifest):
    sys.path.insert(0, ROOT)
    from pe_cli.framework.fluid_model_write import _attr_kind
    from pe_cli.ops import registry

    ops = manifest["ops"]
    common = set(registry.COMMON_ATTRS) | {"with_quant_attr"}
    versions = {t: m["version"] for t, m in sorted(ops.items()) if m.get("version")}
    kinds, renamed = {}, {}
    for op_type in sorted(set(registry.all_op_types()) & set(ops)):
        opdef = registry.get(op_type)
        declared = {a["name"]: a["type"] for a in ops[op_type]["attrs"] if a["name"] not in common}
        defaults = opdef.default_attrs()
        for name, spec in opdef.attrs.items():
            if spec.alias_of and name in declared and spec.alias_of not in declared:
                renamed[f"{op_type}.{spec.alias_of}"] = name
        for name, typ in declared.items():
            if typ not in CODES or name not in opdef.attrs:
                continue
            default = defaults.get(name, opdef.attrs[name].default)
            shown = _attr_kind(default, default) if default is not None and not callable(default) else None
            if typ not in _SHOWN or shown is None or shown[0] != CODES[typ]:
                kinds.setdefault(CODES[typ], []).append(f"{op_type}.{name}")
    return versions, kinds, renamed


def _wrapped(words, indent):
    lines, line = [], indent
    for w in words:
        if len(line) + len(w) + 1 > 110 and line.strip():
            lines.append(line)
            line = indent
        line += w + " "
    return lines + [line] if line.strip() else lines


def write(kinds, renamed):
    names = {v: k for k, v in CODES.items()}
    out = [
        '"""What Paddle 2.6.2 reads of a saved 2.x program that a value does not show (written by',
        "tools/paddle26_desc_kinds.py from Paddle 2.6.2's op manifest; fluid_model_write.py writes by it): the",
        "attribute types by AttrType code (KINDS: ``op.attr``), the attributes Paddle 2.6.2 names otherwise than",
        "Fluid 1.8 (RENAMED) and the values it writes as float64 (FLOAT64_VALUES). Each op type's version (the",
        'op_version_map Paddle 2.6.2 writes) is in op_versions.py (VERSIONS)."""',
        "",
        "KINDS = {}",
    ]
    for code in sorted(kinds):
        out += [
            f"KINDS.update(  # {names[code]}",
            "    dict.fromkeys(",
            '        """',
            *_wrapped(kinds[code], "        "),
            '        """.split(),',
            f"        {code},",
            "    )",
            ")",
        ]
    out += ["RENAMED = {", *(f'    "{k}": "{v}",' for k, v in sorted(renamed.items())), "}"]
    out += [
        "# the values Paddle 2.6.2 writes as float64 (FLOAT64S) for a float64 dtype where Fluid 1.8 had float32's",
        'FLOAT64_VALUES = {"assign_value": ("fp32_values", "fp64_values")}',
        "",
    ]
    with open(OUT + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(line.rstrip() for line in out))
    os.replace(OUT + ".tmp", OUT)


def main(argv):
    path = argv[0] if argv else "/work/shared/api/paddle-2.6.2-ops.json"
    with open(path, encoding="utf-8") as f:
        versions, kinds, renamed = tables(json.load(f))
    from pe_cli.ops.op_versions import VERSIONS

    if versions != VERSIONS:
        differ = sorted(t for t in set(versions) | set(VERSIONS) if versions.get(t, 0) != VERSIONS.get(t, 0))
        sys.exit(f"pe_cli/ops/op_versions.py's VERSIONS differ from {path}'s for {', '.join(differ)}")
    write(kinds, renamed)
    print(f"{len(versions)} op versions, {sum(map(len, kinds.values()))} attribute types, {len(renamed)} renamed")


if __name__ == "__main__":
    main(sys.argv[1:])
