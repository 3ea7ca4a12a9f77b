"""Fluid 1.8's layer submodules that scripts import by name (``from paddle.fluid.layers.ops import
exp``, ``layers.sequence_lod.sequence_pool``): each face module's names resolve to pe's layers."""

import importlib

import pytest

import pe_cli.layers as layers


@pytest.mark.parametrize("module", ["ops", "sequence_lod", "metric_op", "detection", "loss", "nn", "tensor"])
def test_every_name_of_a_fluid_layer_module_is_a_pe_layer(module):
    mod = importlib.import_module(f"pe_cli.layers.{module}")
    assert getattr(layers, module) is mod
    for name in mod.__all__:
        assert getattr(mod, name) is getattr(layers, name), name
        assert not getattr(getattr(mod, name), "_pe_not_yet", False), f"{module}.{name} is a stand-in"
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        getattr(mod, "nope")
