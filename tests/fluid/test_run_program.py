"""run_program, Fluid 1.8's dygraph-to-static op: a block holding a program's forward ops followed by the
gradient ops ``fluid.backward.gradients`` appended to them (as dygraph-to-static's PartialProgramLayer
builds it), run by the op: in a static program (forward, and run_program_grad from append_backward), and
as Fluid's dygraph drives it, eagerly through ``core.VarBase`` and the tracer's ``trace_op`` with a block
of another program. Each gives the plain ops' numbers."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.dtypes import VarType
from pe_cli.base.errors import PeError

_rng = np.random.RandomState(0)
X, W, B = (
    (_rng.rand(2, 3) - 0.3).astype("float32"),
    (_rng.rand(3, 4) - 0.5).astype("float32"),
    (_rng.rand(4) - 0.5).astype("float32"),
)
FETCH = ["w@GRAD", "b@GRAD"]


def _params():
    init = fluid.initializer.NumpyArrayInitializer
    return (
        fluid.layers.create_parameter([3, 4], "float32", name="w", default_initializer=init(W)),
        fluid.layers.create_parameter([4], "float32", name="b", default_initializer=init(B)),
    )


def _forward(x, w, b):
    return fluid.layers.relu(fluid.layers.elementwise_add(fluid.layers.mul(x, w), b))


def _run(main, startup, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        return exe.run(main, feed={"x": X}, fetch_list=fetch)


def _plain(loss):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        out = _forward(fluid.data("x", [None, 3], "float32"), *_params())
        fluid.backward.append_backward(loss(out))
    return _run(main, startup, [out.name] + FETCH)


def _with_gradients(out, fluid_seeds):
    """gradients() of ``out`` after its forward ops; with ``fluid_seeds`` seeded as Fluid's gradients()
    seeds it (a shape and a fill_constant, which Fluid's run_program_grad skips), else pe's (one fill)."""
    if not fluid_seeds:
        return fluid.backward.gradients([out], [])
    block = out.block
    seed = block.create_var(name=out.name + "@GRAD", shape=out.shape, dtype=out.dtype)
    block.append_op(
        "fill_constant",
        {"ShapeTensor": [fluid.layers.shape(out)]},
        {"Out": [seed]},
        {"shape": [1], "value": 1.0, "dtype": out.dtype},
    )
    return fluid.backward.gradients([out], [], target_gradients=[seed])


def _holding_run_program(fluid_seeds):
    """A static program whose sub-block holds the forward and gradient ops over its own x, w, b (as
    dygraph-to-static's program holds them) and whose global block runs them with run_program."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x, (w, b) = fluid.data("x", [None, 3], "float32"), _params()
        body = main._create_block()
        inner = _forward(
            *[body.create_var(name=v.name, shape=v.shape, dtype=v.dtype, stop_gradient=v is x) for v in (x, w, b)]
        )
        end = len(body.ops)
        _with_gradients(inner, fluid_seeds)
        main._rollback()
        top = main.global_block()
        out = top.create_var(name=inner.name, shape=inner.shape, dtype=inner.dtype)
        scope = top.create_var(name="program_out_scope", type=VarType.STEP_SCOPES)
        top.append_op(
            "run_program",
            {"X": [x], "Params": [w, b]},
            {"Out": [out], "OutScope": [scope]},
            {"global_block": body, "start_op_index": 0, "end_op_index": end},
        )
        fluid.backward.append_backward(fluid.layers.mean(out))  # Out@GRAD: not the seeds' ones
    return main, startup, out


@pytest.mark.parametrize("fluid_seeds", [False, True], ids=["pe_gradients", "fluid_gradients"])
def test_a_static_program_holding_it_computes_what_the_plain_ops_do(fluid_seeds):
    main, startup, out = _holding_run_program(fluid_seeds)
    assert [op.type for op in main.global_block().ops if "run_program" in op.type] == [
        "run_program",
        "run_program_grad",
    ]
    expected = _plain(fluid.layers.mean)
    assert all(np.abs(e).sum() > 0 for e in expected)
    for got, want in zip(_run(main, startup, [out.name] + FETCH), expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_an_inference_model_holding_it_saves_and_loads_with_its_block(tmp_path):
    """global_block is a BLOCK attribute in Fluid's __model__, renumbered with the blocks kept."""
    main, startup, out = _holding_run_program(False)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        want = exe.run(main, feed={"x": X}, fetch_list=[out])[0]
        fluid.io.save_inference_model(str(tmp_path), ["x"], [out], exe, main_program=main)
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe)
        assert program.global_block().ops[0].attrs["global_block"] == 1
        np.testing.assert_array_equal(exe.run(program, feed={"x": X}, fetch_list=fetches)[0], want)


def test_fluids_dygraph_runs_it_eagerly_with_a_block_of_another_program():
    """Paddle 1.8's test_run_program_op.py and PartialProgramLayer: inputs made by core.VarBase, outputs
    by _varbase_creator, the op traced with global_block=program.desc.block(0), then backward()."""
    program = fluid.Program()
    with fluid.program_guard(program, fluid.Program()), fluid.unique_name.guard():
        out = _forward(fluid.data("x", [None, 3], "float32"), *_params())
        end = len(program.global_block().ops)
        fluid.backward.gradients([out], [])
    with fluid.dygraph.guard():
        x = fluid.core.VarBase(value=X, name="x", place=fluid.CPUPlace(), zero_copy=True)
        params = [fluid.core.VarBase(value=v, name=n, place=fluid.CPUPlace()) for n, v in (("w", W), ("b", B))]
        for p in params:
            p.stop_gradient = False
        y = fluid.framework._varbase_creator(name=out.name)
        y.stop_gradient = False
        scope = fluid.framework._varbase_creator(type=VarType.STEP_SCOPES, name="program_out_scope", persistable=True)
        scope.value().set_scope(fluid.core.Scope())
        fluid.framework._dygraph_tracer().trace_op(
            "run_program",
            {"X": [x], "Params": params},
            {"Out": [y], "OutScope": scope},
            {"global_block": program.desc.block(0), "start_op_index": 0, "end_op_index": end, "is_test": False},
        )
        y.backward()
        got = [y.numpy()] + [p.gradient() for p in params]
    for g, want in zip(got, _plain(fluid.layers.reduce_sum)):  # backward(): the gradient of its sum
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_a_range_beyond_its_block_and_a_varbase_outside_guard_are_refused():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [None, 3], "float32")
        body = main._create_block()
        main._rollback()
        with pytest.raises(PeError, match=r"end_op_index 1 are no range of the 0 ops of block 1"):
            main.global_block().append_op(
                "run_program",
                {"X": [x], "Params": []},
                {"Out": [], "OutScope": []},
                {"global_block": body, "start_op_index": 0, "end_op_index": 1},
            )
    with pytest.raises(RuntimeError, match=r"core.VarBase: .*inside fluid.dygraph.guard\(\)"):
        fluid.core.VarBase(value=X, name="x", place=fluid.CPUPlace())


def test_a_block_without_gradient_seeds_and_saving_another_programs_block_are_refused(tmp_path):
    """The block of another program, holding the forward ops only: its gradient has no ops to run, and a
    model file cannot name that block."""
    inner = fluid.Program()
    with fluid.program_guard(inner, fluid.Program()), fluid.unique_name.guard():
        y = _forward(fluid.data("x", [None, 3], "float32"), *_params())
    main, startup = fluid.Program(), fluid.Program()
    end = len(inner.global_block().ops)
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x, params = fluid.data("x", [None, 3], "float32"), _params()
        top = main.global_block()
        out = top.create_var(name=y.name, shape=y.shape, dtype=y.dtype)
        top.append_op(
            "run_program",
            {"X": [x], "Params": list(params)},
            {"Out": [out], "OutScope": [top.create_var(name="scope", type=VarType.STEP_SCOPES)]},
            {"global_block": inner.global_block(), "start_op_index": 0, "end_op_index": end},
        )
        fluid.backward.append_backward(fluid.layers.mean(out))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        with pytest.raises(PeError, match="run_program_grad: after end_op_index 3 the block has no op seeding"):
            exe.run(main, feed={"x": X}, fetch_list=FETCH)
        with pytest.raises(PeError, match="global_block is a block of another program"):
            fluid.io.save_inference_model(str(tmp_path), ["x"], [out], exe, main_program=main)
