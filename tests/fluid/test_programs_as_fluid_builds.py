"""Programs as Fluid 1.8.5 builds them (docs/COMPAT.md "Programs as Fluid builds them"): inference models
Fluid saved (tools/fluid_program_models.py, tests/data/fluid_programs/) whose control flow is Fluid's
own ops (StaticRNN's recurrent, DynamicRNN's while over read_from_array / write_to_array and the rank
table ops, a While beam-search decoder, conditional_block_infer) load on pe and fetch what Fluid fetched,
LoD included."""

import json
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "fluid_programs")


def _run_saved(name):
    with open(os.path.join(DATA, name, "io.json")) as f:
        io = json.load(f)
    place, scope = fluid.CPUPlace(), fluid.Scope()
    exe = fluid.Executor(place)
    with fluid.scope_guard(scope):
        program, feed_names, fetches = fluid.io.load_inference_model(
            os.path.join(DATA, name), exe, params_filename="params"
        )
        feeds = {}
        for n, spec in io["feeds"].items():
            value = np.array(spec["data"], dtype=spec["dtype"])
            feeds[n] = (
                fluid.create_lod_tensor(value, [list(np.diff(level)) for level in spec["lod"]], place)
                if spec["lod"]
                else value
            )
        got = exe.run(program, feed=feeds, fetch_list=fetches, return_numpy=False)
    return program, io, got


@pytest.mark.parametrize("name", ["static_rnn", "dynamic_rnn", "beam_search", "cond_infer"])
def test_a_model_fluid_saved_with_its_control_flow_fetches_what_fluid_fetched(name):
    program, io, got = _run_saved(name)
    assert sorted({op.type for b in program.blocks for op in b.ops} | {"feed", "fetch"}) == io["ops"]
    for want, value in zip(io["fetches"], got):
        np.testing.assert_allclose(
            np.array(value),
            np.array(want["data"], dtype=want["dtype"]).reshape(np.array(value).shape),
            rtol=1e-5,
            atol=1e-6,
        )
        assert [list(level) for level in value.lod()] == want["lod"]
