"""pe writes inference models in Fluid's formats (pe_cli/io/fluid_model.py ``program_to_desc``,
pe_cli/io/checkpoint.py ``fluid_files``), so PaddlePaddle loads what pe saves. Here: every op case's
op survives the ProgramDesc with its attributes (Fluid's attribute types: a float attribute is
float32, as in Fluid), saved models compute what they computed before saving, and attributes Fluid's
types cannot hold are refused by name. (Paddle 2.6.2 itself loading pe's models was checked by hand:
see docs/COMPAT.md; Paddle is not a dependency.)"""

import numpy as np
import pytest

from op_test import _out_vars, build_program
from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.io.fluid_model import program_from_desc
from pe_cli.framework.fluid_model_write import program_to_desc
from pe_cli.base.fluid_proto import parse_program_desc
from tests.ops.test_ops import CASES


def _same(value):
    """An attribute value as Fluid's types keep it: floats as float32, tuples as lists."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return float(np.float32(value))
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_same(v) for v in value]
    return value


def _round_trip(program, feeds, fetches):
    block = program.global_block()
    data = program_to_desc(program, block.ops, list(block.vars), feeds, fetches, "test")
    return program_from_desc(parse_program_desc(data, "test"), "test")


SAVED = [c for c in CASES if c.op not in ("fusion_group",)]  # fusion_group: made by a pass, never saved


@pytest.mark.parametrize("case", SAVED, ids=[c.id for c in SAVED])
def test_every_op_keeps_its_attributes_in_fluids_program_desc(case):
    out_slots = case.outputs or tuple(case.ref(case.inputs, {**_defaults(case), **case.attrs}).keys())
    program, names, _, _ = build_program(case, out_slots, with_loss=False)
    fetches = [f"out_{v}" for s in out_slots for v in _out_vars(case, s)]
    loaded, feeds, got_fetches = _round_trip(program, [n for ns in names.values() for n in ns], fetches)
    assert feeds == [n for ns in names.values() for n in ns] and got_fetches == fetches
    (before,), (after,) = program.global_block().ops, loaded.global_block().ops
    assert after.type == before.type and after.inputs == before.inputs and after.outputs == before.outputs
    want = {k: _same(v) for k, v in before.attrs.items() if not k.startswith("_") and v is not None}
    got = {k: _same(v) for k, v in after.attrs.items() if k in want}
    assert got == want


def _defaults(case):
    from pe_cli.ops import registry

    return registry.get(case.op).default_attrs()


def test_a_saved_model_computes_what_it_computed_and_records_feeds_and_fetches(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        img = fluid.data("img", [None, 1, 8, 8])
        words = fluid.data("words", [None, 1], dtype="int64", lod_level=1)
        conv = fluid.layers.conv2d(img, 3, 3, act="relu")
        pooled = fluid.layers.pool2d(fluid.layers.batch_norm(conv), 2, pool_stride=2)
        emb = fluid.layers.embedding(words, [20, 4])
        seq = fluid.layers.sequence_pool(emb, "sum")
        out = fluid.layers.fc([pooled, seq], 5, act="softmax")
        scaled = fluid.layers.scale(out, scale=0.1, bias=2)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    rng = np.random.default_rng(0)
    feed = {
        "img": rng.normal(size=(2, 1, 8, 8)).astype("float32"),
        "words": fluid.create_lod_tensor(rng.integers(0, 20, (5, 1)), [[2, 3]], fluid.CPUPlace()),
    }
    exe.run(startup, scope=scope)
    test = main.clone(for_test=True)
    want = exe.run(test, feed=feed, fetch_list=[out, scaled], scope=scope)
    with fluid.scope_guard(scope):
        fluid.io.save_inference_model(
            str(tmp_path), ["img", "words"], [out, scaled], exe, main, params_filename="params"
        )
    desc = parse_program_desc((tmp_path / "__model__").read_bytes(), "__model__")
    ops = desc.blocks[0].ops
    # as Fluid: feeds prepended one by one (the last first), fetches appended in order, each with its col
    assert [(op.type, op.attrs[0].i) for op in ops if op.type in ("feed", "fetch")] == [
        ("feed", 1),
        ("feed", 0),
        ("fetch", 0),
        ("fetch", 1),
    ]
    holders = {v.name: v.type.type for v in desc.blocks[0].vars if v.name in ("feed", "fetch")}
    assert holders == {"feed": 9, "fetch": 10}
    words_var = next(v for v in desc.blocks[0].vars if v.name == "words")
    assert words_var.type.lod_tensor.lod_level == 1 and words_var.type.lod_tensor.tensor.data_type == 3
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe, params_filename="params")
        got = exe.run(program, feed=feed, fetch_list=fetches)
    assert feeds == ["img", "words"]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


def test_an_attribute_fluid_cannot_hold_is_refused_naming_the_op(tmp_path):
    program = fluid.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[2, 3], dtype="float32", is_data=True)
    block.create_var(name="y")
    block.append_op("scale", {"X": ["x"]}, {"Out": ["y"]}, {"scale": 2.0})
    block.ops[0].attrs["bias"] = {"not": "a number"}  # what no Fluid attribute type holds
    with pytest.raises(PeError, match=r"block 0 op 0: op scale: attribute bias=.* has no Fluid attribute type"):
        program_to_desc(program, block.ops, list(block.vars), ["x"], ["y"], "m/__model__")


def test_a_stale_npy_file_is_not_read_over_the_newer_fluid_file(tmp_path):
    """pe wrote ``.npy`` parameters before it wrote Fluid's files: a model saved again into the same
    directory is read from what was saved last."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 3])
        y = fluid.layers.fc(x, 2)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    weight = main.global_block().all_parameters()[0].name
    np.save(tmp_path / f"{weight}.npy", np.zeros((3, 2), "float32"))  # an older save's file
    import os

    os.utime(tmp_path / f"{weight}.npy", (1, 1))
    with fluid.scope_guard(scope):
        fluid.io.save_inference_model(str(tmp_path), ["x"], [y], exe, main)
    with fluid.scope_guard(fluid.Scope()):
        fluid.io.load_inference_model(str(tmp_path), exe)
        np.testing.assert_array_equal(fluid.global_scope().get_array(weight), scope.get_array(weight))


def test_a_saved_feed_keeps_its_own_feed_check_as_fluid_writes_it(tmp_path):
    """Fluid's VarDesc records need_check_feed as the variable has it: a layers.data feed is not
    checked after loading (a [1, 4, 1] value for [-1, 4] runs, as in a user's program on Fluid
    1.8.5), a fluid.data feed is."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loose = fluid.layers.data("loose", [4])
        strict = fluid.data("strict", [None, 4])
        out = fluid.layers.fc(
            loose, 1, param_attr=fluid.initializer.Constant(0.5), bias_attr=False
        ) + fluid.layers.reduce_sum(strict)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.io.save_inference_model(str(tmp_path), ["loose", "strict"], [out], exe, main_program=main)
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe)
        block = program.global_block()
        assert [block.var(n).need_check_feed for n in ("loose", "strict")] == [False, True]
        (got,) = exe.run(
            program,
            feed={"loose": np.ones((1, 4, 1), "float32"), "strict": np.ones((1, 4), "float32")},
            fetch_list=fetches,
        )
        assert got.reshape(-1).tolist() == [6.0]
        with pytest.raises(PeError, match="feed 'strict': expected shape"):
            exe.run(
                program,
                feed={"loose": np.ones((1, 4), "float32"), "strict": np.ones((1, 4, 1), "float32")},
                fetch_list=fetches,
            )
