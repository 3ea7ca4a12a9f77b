"""Fluid 1.8.5's whole public static-graph API under ``pe fluid``: every name of the manifest read
from the wheel (tests/data/fluid-1.8.5-api.json) resolves; each is implemented or, for dygraph and
custom C++ op libraries, refuses in one line; implemented callables take Fluid's parameters in
Fluid's order, pe-only ones after them and keyword-only. tools/api_manifest.py prints the same
measure with the missing names per module."""

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def measured():
    spec = importlib.util.spec_from_file_location("api_manifest", os.path.join(ROOT, "tools", "api_manifest.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool, tool.measure()


def test_every_name_is_implemented_or_refused(measured):
    tool, result = measured
    missing = {m: names for m, names in result["missing"].items() if names}
    print(
        f"{len(result['implemented'])} implemented, {len(result['refused'])} refused, "
        f"{sum(len(v) for v in missing.values())} missing"
    )
    assert missing == {}
    assert sorted(result["refused"]) == sorted(f"{m}.{n}" for m, names in tool.REFUSED.items() for n in names)


def test_refused_names_say_why_in_one_line(measured):
    tool, _ = measured
    for module_name, names in tool.REFUSED.items():
        module = importlib.import_module(module_name)
        for name in names:
            with pytest.raises(NotImplementedError, match=rf"\b{name}: .*(static graph|C\+\+ op libraries)") as info:
                getattr(module, name)()
            message = str(info.value)
            assert "\n" not in message and ("static graph" in message or "C++ op libraries" in message), message


def test_implemented_callables_take_fluids_parameters(measured):
    _, result = measured
    assert result["signatures"] == []
