"""Every module of the paddlepaddle 1.8.5 wheel under ``pe fluid`` (issue 76, item 3): the 240 modules
of tests/data/fluid-1.8.5-modules.json (read from the wheel) import through pe's hook, each with every
public name Fluid's has; a name pe does not do (pslib, HDFS, MKL-DNN, dygraph mode, slim's IR passes)
is a stand-in that says why in one line when called. tools/module_manifest.py prints the same measure."""

import re
import importlib
import importlib.util
import json
import os

import pytest

from pe_cli.base.errors import FluidUnsupported

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("module_manifest", os.path.join(ROOT, "tools", "module_manifest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measured(tool):
    return tool.measure()


def test_every_module_of_the_wheel_imports_with_every_public_name(measured):
    assert measured["modules"] == 240
    assert measured["failed"] == {}
    assert measured["missing"] == {}


def _stand_ins(tool):
    with open(tool.MANIFEST, encoding="utf-8") as f:
        modules = json.load(f)["modules"]
    for module_name, names in modules.items():
        module = importlib.import_module(module_name)
        for name in names:
            obj = getattr(module, name, None)
            if getattr(obj, "_pe_not_yet", False):
                yield module_name, name, obj


def test_each_name_pe_does_not_do_says_why_in_one_line(measured, tool):
    stand_ins = list(_stand_ins(tool))
    assert len(stand_ins) > 100  # pslib, HDFS, MKL-DNN, dygraph, slim passes
    for module_name, name, obj in stand_ins:
        with pytest.raises(FluidUnsupported, match=rf"\b{re.escape(name)}: ") as info:
            obj()
        message = str(info.value)
        assert "\n" not in message and name in message and ": " in message, (module_name, name, message)


def test_dygraph_names_say_pe_runs_static_graphs(measured):
    import paddle.fluid.dygraph as dygraph

    for name in ("DataParallel", "TracedLayer", "save_dygraph", "CosineDecay", "Sequential"):
        with pytest.raises(FluidUnsupported, match="static graph"):
            getattr(dygraph, name)()
    assert dygraph.ParallelEnv().nranks >= 1  # plain data of the launcher's environment
    with dygraph.no_grad():  # changes nothing in a static program, as Fluid's
        pass


def test_plain_modules_fluid_modules_hold_are_the_real_ones(measured):
    import copy
    import os as os_module

    import numpy as np
    import paddle.fluid.core as core
    import paddle.fluid.debugger as debugger
    import paddle.fluid.layer_helper as layer_helper
    import paddle.fluid.layers.utils as utils

    assert layer_helper.core is core and layer_helper.copy is copy
    assert debugger.os is os_module and utils.np is np
    assert importlib.import_module("paddle.fluid.core_avx") is core
