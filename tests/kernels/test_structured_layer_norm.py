"""layer_norm and layer_norm_grad as structured kernels (pe_cli/shapes/normalization.py, kernels/cpu/layer_norm.py):
their meta rules decide X's [left, right] view, the outputs' shapes and dtypes (Mean and Variance in X's dtype,
Scale@GRAD only where Scale is given) and the variant ("rows": float32/float64 into the buffers; "cast": float16
through float32 scratch) once per signature; each out-kernel fills every buffer it is handed; a planned step's
launch of the forward gives the bits its step gives."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import EnforceNotMet
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.executor.test_planned_step import planned_runs

rng = np.random.default_rng(5)
FORMS = [  # (X's shape, begin_norm_axis, the params given)
    ((4, 5, 6), 1, ("Scale", "Bias")),
    ((4, 5, 6), 2, ("Scale",)),
    ((3, 7), 1, ("Bias",)),
    ((3, 7), 1, ()),
    ((0, 5), 1, ("Scale", "Bias")),
    ((64, 1024), 1, ("Scale", "Bias")),
]


def _filled(op, ins, attrs):
    """The op's out-kernel run into buffers of two sentinel patterns (scratch as the Meta says): its outputs are
    the buffers handed, every element written; returns them."""
    structured, ctx = registry.get(op).structured, KernelContext()
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {slot: np.full(shape, fill, dtype) for slot, (shape, dtype) in meta.outputs.items()}
        given = dict(outs)
        outs.update({name: np.full(shape, fill, dtype) for name, (shape, dtype) in meta.scratch.items()})
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        assert all(outs[slot] is buffer for slot, buffer in given.items())
        answers.append(given)
    for slot in answers[0]:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op} ({meta.variant}): {slot}"
    want = registry.get(op).kernel("cpu")(ins, dict(attrs), ctx)
    assert sorted(want) == sorted(answers[0])
    assert all(want[slot].tobytes() == answers[0][slot].tobytes() for slot in want)
    return meta, answers[0]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape, axis, params", FORMS, ids=[f"{s}-{a}-{'+'.join(p) or 'none'}" for s, a, p in FORMS])
def test_layer_norm_out_kernels_fill_the_buffers_they_are_handed(shape, axis, params, dtype):
    n, attrs = int(np.prod(shape[axis:])), {"begin_norm_axis": axis, "epsilon": 1e-5}
    ins = {"X": rng.uniform(-3, 3, shape).astype(dtype), **{p: rng.uniform(0.5, 1.5, n).astype(dtype) for p in params}}
    meta, outs = _filled("layer_norm", ins, attrs)
    rows = int(np.prod(shape[:axis]))
    view = (rows, n if rows else 0)  # (no rows: X as [0, 0], as the kernel viewed it before)
    assert meta.variant == ("cast" if dtype == "float16" else "rows") and meta.args == view
    assert {s: (tuple(v.shape), v.dtype) for s, v in outs.items()} == {
        "Y": (shape, np.dtype(dtype)),
        "Mean": ((rows,), np.dtype(dtype)),
        "Variance": ((rows,), np.dtype(dtype)),
    }
    gins = {
        **ins,
        "Mean": outs["Mean"],
        "Variance": outs["Variance"],
        "Y@GRAD": rng.uniform(-1, 1, shape).astype(dtype),
    }
    _, douts = _filled("layer_norm_grad", gins, attrs)
    assert set(douts) == {"X@GRAD", "Bias@GRAD"} | ({"Scale@GRAD"} if "Scale" in params else set())


def test_a_layer_norm_step_decides_its_meta_once_per_shape_signature():
    program = Program()
    block = program.global_block()
    for name in ("x", "s", "b", "y", "m", "v"):
        block.create_var(name=name)
    block.append_op(
        "layer_norm",
        {"X": ["x"], "Scale": ["s"], "Bias": ["b"]},
        {"Y": ["y"], "Mean": ["m"], "Variance": ["v"]},
        {"begin_norm_axis": 1},
    )
    step = OpStep(block.ops[0], CPUPlace())
    rule, calls = step.kernel.meta, []

    def counted(attrs, ins, facts):
        calls.append(ins["X"].shape)
        return rule(attrs, ins, facts)

    step.kernel.meta = counted
    kernel = registry.get("layer_norm").kernel("cpu")
    for shape in [(4, 8)] * 3 + [(2, 8)] * 2:
        ins = {
            "X": rng.uniform(-1, 1, shape).astype(np.float32),
            "Scale": np.ones(8, np.float32),
            "Bias": np.zeros(8, np.float32),
        }
        values = Values({"x": ins["X"], "s": ins["Scale"], "b": ins["Bias"]})
        run_step(step, values)
        want = kernel(ins, {"begin_norm_axis": 1, "epsilon": 1e-5})
        assert values["y"].tobytes() == want["Y"].tobytes() and values["v"].tobytes() == want["Variance"].tobytes()
    assert calls == [(4, 8), (2, 8)]


def _layer_norm_run(monkeypatch, planned):
    """Three layer_norms and their gradients: float32 [6, 4, 8] from axis 2 with Scale and Bias (launched in a
    segment), from axis 1 with neither (launched), and float64 [6, 3] with both (launched): (fetched, executor)."""
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        given = [("a", [4, 8], "float32", 2, True), ("b", [4, 8], "float32", 1, False), ("c", [3], "float64", 1, True)]
        losses = []
        for name, shape, dtype, axis, affine in given:
            x = fluid.layers.data(name, shape, dtype=dtype)
            x.stop_gradient = False
            y = fluid.layers.layer_norm(x, scale=affine, shift=affine, begin_norm_axis=axis)
            losses.append(fluid.layers.cast(fluid.layers.mean(y * y), "float32"))
        total = fluid.layers.sums(losses)
        grads = fluid.gradients(total, [main.global_block().var(n) for n, *_ in given])
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    rng, fetched = np.random.default_rng(4), []
    for _ in range(3):
        feeds = {name: rng.standard_normal((6, *shape)).astype(dtype) for name, shape, dtype, *_ in given}
        fetched.append(exe.run(main, feed=feeds, fetch_list=[total, *grads], scope=scope))
    return fetched, exe


def test_a_planned_step_launches_layer_norm_with_the_bits_of_op_by_op(monkeypatch):
    planned, exe = _layer_norm_run(monkeypatch, True)
    unplanned, _ = _layer_norm_run(monkeypatch, False)
    for a, b in zip(planned, unplanned):
        assert all(x.dtype == y.dtype and x.tobytes() == y.tobytes() for x, y in zip(a, b))
    (run,) = planned_runs(exe, 1)
    launched = sorted(
        (step.op.type, launches is not None)
        for step, launches in zip(run.plan.steps, run.plan.launches)
        if step.op.type.startswith("layer_norm")
    )
    # (the gradient of the one without Scale and Bias: its Meta names a Bias@GRAD the op does not write, a
    # Python launch; the two others launch their loops, kernels/cpu/layer_norm.grad_launches)
    assert launched == [("layer_norm", True)] * 3 + [("layer_norm_grad", False)] + [("layer_norm_grad", True)] * 2


def test_a_layer_norm_step_refuses_a_scale_of_another_size_as_its_shape_rule_did():
    """Fluid compares Scale's and Bias's size with X's when the op runs: the meta rule refuses in the one line
    the run-time shape rule gave, and again on the next run (a refused signature is not kept)."""
    program = Program()
    block = program.global_block()
    for name in ("x", "s", "y", "m", "v"):
        block.create_var(name=name)
    block.append_op("layer_norm", {"X": ["x"], "Scale": ["s"]}, {"Y": ["y"], "Mean": ["m"], "Variance": ["v"]}, {})
    step = OpStep(block.ops[0], CPUPlace())
    for _ in range(2):
        with pytest.raises(
            EnforceNotMet,
            match=r"built at .*: layer_norm: Scale \[5\] must be \[4\], the size of X \[3, 4\] from begin_norm_axis=1$",
        ):
            run_step(step, Values({"x": np.ones((3, 4), np.float32), "s": np.ones(5, np.float32)}))
