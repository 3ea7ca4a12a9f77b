"""The map of op families in docs/ARCHITECTURE.md, made from the registry: one line per family of
``pe_cli/ops/``, what it holds (the module docstring's first sentence) and its forward op types.
Each family's kernels are ``pe_cli/kernels/{cpu,cuda}/<family>.py`` and its layers, where it has
any, ``pe_cli/layers/<family>.py``.

    python tools/op_families.py            # print the table
    python tools/op_families.py --write    # replace it in docs/ARCHITECTURE.md

tests/test_architecture.py checks that the document holds the table this prints.
"""

import argparse
import importlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
BEGIN = "<!-- op families: tools/op_families.py --write -->"
END = "<!-- end of op families -->"


def _summary(module):
    doc = (module.__doc__ or "").strip().replace("\n", " ")
    end = doc.find(". ")
    return (doc if end < 0 else doc[: end + 1]).replace("|", "/")


def families():
    """{family: (summary, [forward op types])} for every family module of pe_cli/ops/."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from pe_cli.ops import registry

    found = {}
    for op_type in registry.all_op_types():
        opdef = registry.get(op_type)
        if "_grad" in op_type:  # a gradient op lives with its forward op
            continue
        found.setdefault(opdef.kernel_module, []).append(op_type)
    table = {}
    for family in sorted(found):
        path = os.path.join(ROOT, "pe_cli", "ops", f"{family}.py")
        summary = _summary(importlib.import_module(f"pe_cli.ops.{family}")) if os.path.exists(path) else ""
        table[family] = (summary, sorted(found[family]))
    return table


def _has_layers(family):
    return os.path.exists(os.path.join(ROOT, "pe_cli", "layers", f"{family}.py"))


def table():
    lines = [BEGIN, "| family | what it holds | forward op types |", "|---|---|---|"]
    for family, (summary, types) in families().items():
        name = f"`{family}`" + (" (+ layers)" if _has_layers(family) else "")
        lines.append(f"| {name} | {summary} | {', '.join(types)} |")
    lines.append(END)
    return "\n".join(lines)


def written():
    """The table as docs/ARCHITECTURE.md holds it now ('' when it has none)."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        return ""
    return text[text.index(BEGIN) : text.index(END) + len(END)]


def write():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    new = table()
    text = text.replace(written(), new) if written() else text.rstrip("\n") + "\n\n" + new + "\n"
    tmp = DOC + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, DOC)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="replace the table in docs/ARCHITECTURE.md")
    if parser.parse_args().write:
        write()
    else:
        print(table())
