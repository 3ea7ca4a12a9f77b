"""Seed 002's ``fluid.layers`` index, kept classified: each name is implemented in pe_cli.fluid.layers
or is a stand-in raising NotImplementedError that names it and says pe does not support it yet, and
docs/COMPAT.md's table lists exactly the names that are not implemented. "Implemented" is read from
the code at test time, so layers that land on other branches need no change here."""

from paths import REPO
import os
import re

import pytest

import pe_cli.fluid as fluid

ROOT = REPO
SEED = os.path.join(ROOT, "..", "shared", "seeds", "002_a9e56ac86d0be8c3.txt")
SEED = SEED if os.path.isfile(SEED) else "/work/shared/seeds/002_a9e56ac86d0be8c3.txt"
COMPAT = os.path.join(ROOT, "docs", "COMPAT.md")
HEADING = "## `fluid.layers`: seed 002's index"
EITHER = "in progress (issues 12, 13)"  # the row other branches are implementing now


def index_names():
    """The seed's fluid.layers index: its alphabetical run of ``- name`` lines from adaptive_pool2d
    to the first zeros_like after it (the paddle.* index before it ends at get_flags; the names
    after it are fluid's top level and paddle.nn)."""
    lines = open(SEED, encoding="utf-8").read().splitlines()
    start = lines.index("- adaptive_pool2d")
    end = lines.index("- zeros_like", start)
    names = [line[2:].strip() for line in lines[start : end + 1]]
    assert all(line.startswith("- ") for line in lines[start : end + 1])
    assert names == sorted(names, key=str.lower), "the index run is not alphabetical: parsed wrongly"
    return names


def doc_table():
    """name -> row (group) of docs/COMPAT.md's table under HEADING."""
    text = open(COMPAT, encoding="utf-8").read()
    assert HEADING in text, f"docs/COMPAT.md lost its section {HEADING!r}"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    table = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not line.startswith("|") or cells[0] in ("not yet in pe", "---"):
            continue
        for name in re.findall(r"`([^`]+)`", cells[1]):
            assert name not in table, f"{name} is listed twice in docs/COMPAT.md"
            table[name] = cells[0]
    return table


def _implemented(name):
    obj = getattr(fluid.layers, name, None)
    return obj is not None and callable(obj) and not getattr(obj, "_pe_not_yet", False)


def _raises_not_yet(name):
    obj = getattr(fluid.layers, name, None)
    assert obj is not None, f"fluid.layers.{name} does not exist"
    with pytest.raises(NotImplementedError, match=rf"fluid\.layers\.{name}\b.*pe does not support it yet") as e:
        obj(None)
    assert f"fluid.layers.{name}" in str(e.value) and "pe does not support it yet" in str(e.value), str(e.value)


def test_the_index_parses():
    names = index_names()
    assert len(names) == 247 and names[0] == "adaptive_pool2d" and names[-1] == "zeros_like"
    assert {"fc", "embedding", "While", "sequence_pool", "yolov3_loss"} <= set(names)


def test_every_name_outside_the_table_is_implemented():
    table = doc_table()
    missing = [n for n in index_names() if n not in table and not _implemented(n)]
    assert not missing, f"neither implemented nor in docs/COMPAT.md's table: {missing}"


def test_every_name_in_the_table_raises_naming_itself():
    table, names = doc_table(), set(index_names())
    assert set(table) <= names, f"docs/COMPAT.md lists names outside the index: {sorted(set(table) - names)}"
    stale = []
    for name, group in table.items():
        if _implemented(name):
            if group != EITHER:
                stale.append(name)
            continue
        _raises_not_yet(name)
    assert not stale, f"implemented now: remove from docs/COMPAT.md's table (and layers/not_yet.py): {stale}"


def test_capitalized_stand_ins_are_classes():
    for name, group in doc_table().items():
        if name[0].isupper() and not _implemented(name):
            assert isinstance(getattr(fluid.layers, name), type), name
