"""How many of Paddle 2.6.2's op types pe registers under Paddle's names (issue 85's count), and which are
missing: reads the manifest (/work/shared/api/paddle-2.6.2-ops.json, or the op-type list committed beside
the tests, tests/data/paddle-2.6.2-op-types.txt, which ``--write-types`` refreshes from the manifest) and
asks pe's registry.

    .venv/bin/python tools/paddle26_op_count.py [--missing] [--write-types] [MANIFEST]
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = "/work/shared/api/paddle-2.6.2-ops.json"
TYPES = os.path.join(ROOT, "tests", "data", "paddle-2.6.2-op-types.txt")


def manifest_types(path=None):
    """The manifest's op types: from the JSON manifest when given or present, else the committed list."""
    path = path or (MANIFEST if os.path.exists(MANIFEST) else TYPES)
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            return sorted(json.load(f)["ops"])
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def count(types):
    """(registered, missing) of ``types`` in pe's registry."""
    from pe_cli.ops import registry

    known = set(registry.all_op_types())
    return [t for t in types if t in known], [t for t in types if t not in known]


def main(argv):
    paths = [a for a in argv if not a.startswith("--")]
    types = manifest_types(paths[0] if paths else None)
    if "--write-types" in argv:
        with open(TYPES + ".tmp", "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in types))
        os.replace(TYPES + ".tmp", TYPES)
    have, missing = count(types)
    xpu = [t for t in missing if "xpu" in t]
    print(
        f"{len(have)} of {len(types)} op types of Paddle 2.6.2 registered under Paddle's names; "
        f"{len(missing)} missing ({len(xpu)} of them XPU-only)"
    )
    if "--missing" in argv:
        print(" ".join(t for t in missing if "xpu" not in t))


if __name__ == "__main__":
    main(sys.argv[1:])
