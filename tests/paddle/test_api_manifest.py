"""Paddle 2.6.2's public API (tests/data/paddle-2.6.2-api.json, read from the wheel) under ``pe fluid``:
every one of its 850 names is implemented or refused (dygraph-only, Paddle 2.6.2's own static-mode
refusals, hardware and a dtype pe lacks: each raises in one line saying why), none missing, and the
counts are printed; seed 002's paddle.nn section (190 names of
paddle.nn and paddle.nn.functional, tests/data/paddle-2.6.2-seed002.json) and paddle.vision.transforms
(38) are all implemented; implemented callables take Paddle's parameters in Paddle's order, pe-only
ones after them and keyword-only. ``python tools/api_manifest.py paddle`` prints the same measure with
the missing names per module."""

import re
import importlib.util
import json
import os

import pytest

from pe_cli.base.errors import PeError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def measured():
    spec = importlib.util.spec_from_file_location("api_manifest", os.path.join(ROOT, "tools", "api_manifest.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool, tool.measure(tool.PADDLE_MANIFEST, tool.PADDLE_REFUSED)


def test_every_name_is_implemented_or_refused_and_the_counts_are_printed(measured):
    tool, result = measured
    with open(tool.PADDLE_MANIFEST, encoding="utf-8") as f:
        total = sum(len(names) for names in json.load(f)["modules"].values())
    missing = sum(len(v) for v in result["missing"].values())
    print(
        f"Paddle 2.6.2: {len(result['implemented'])} implemented, {len(result['refused'])} refused "
        f"(each in one line saying why), {missing} missing, of {total}"
    )
    for module_name, names in sorted(result["missing"].items()):
        print(f"  missing {module_name} ({len(names)}): {' '.join(names)}")
    assert total == 850 and len(result["implemented"]) + len(result["refused"]) + missing == total
    assert missing == 0, dict(result["missing"])
    assert sorted(result["refused"]) == sorted(f"{m}.{n}" for m, names in tool.PADDLE_REFUSED.items() for n in names)
    assert not set(result["implemented"]) & set(result["refused"])


def test_seed_002_paddle_nn_and_vision_transforms_are_all_implemented(measured):
    tool, result = measured
    sections = tool.seed_sections(result)
    for section, (done, total, lacking) in sections.items():
        print(f"seed 002 {section}: {done}/{total}")
    assert sections["paddle.nn"][:2] == (190, 190), sections["paddle.nn"][2]
    assert sections["paddle.vision.transforms"][:2] == (38, 38), sections["paddle.vision.transforms"][2]


def test_refused_names_refuse_in_one_line_saying_why(measured):
    """A refused function or class raises NotImplementedError when called; a refused dtype, the same line
    as a PeError when a variable is declared with it."""
    tool, _ = measured
    paddle = importlib.import_module("paddle")
    for module_name, names in tool.PADDLE_REFUSED.items():
        module = importlib.import_module(module_name)
        for name, why in names.items():
            obj = getattr(module, name)
            with pytest.raises((NotImplementedError, PeError), match=re.escape(f"{module_name}.{name}: {why}")) as info:
                obj() if callable(obj) else paddle.static.data("x", [1], obj)
            message = str(info.value)
            assert "\n" not in message and message == f"{module_name}.{name}: {why}", message


def test_implemented_callables_take_paddles_parameters(measured):
    _, result = measured
    assert result["signatures"] == []
