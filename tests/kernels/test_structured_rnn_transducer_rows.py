"""Paddle 2.x's rnn op, warprnnt, shuffle_batch, the selected-rows ops and their gradients as structured kernels
(shapes/rnn.py, transducer.py, batch_shuffle.py, selected_rows.py; issue 95): rnn's are fresh variants handing over
the arrays their walk makes (lists of states and weights' gradients too), warprnnt's and shuffle_batch's fill the
buffers they are handed (warprnnt's lattices in the Meta's scratch), the selected-rows ops hand over the
SelectedRows they make (described by their dense shape and dtype) and get_tensor_from_selected_rows a new array
of the values (its rows -1 in the Meta); each the op's kernel's bits and its case's reference values, its refusals
made by its meta rule."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.base.selected_rows import SelectedRows
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

FAMILIES = ("rnn", "warprnnt", "shuffle_batch", "selected rows")
ALL = [(family, c) for family in FAMILIES for c in CASES[family]]
rng = np.random.default_rng(61)


def _in_dtype(value, dtype):
    """A case's value with its floats in ``dtype`` (a list's each, a SelectedRows' values), ints as they are."""
    if isinstance(value, list):
        return [_in_dtype(v, dtype) for v in value]
    if isinstance(value, SelectedRows):
        return value.with_arrays(value.rows, value.values.astype(dtype))
    a = np.asarray(value)
    return a.astype(dtype) if a.dtype.kind == "f" else a


def _arrays(value):
    """The arrays a value holds (a list's, a SelectedRows' rows and values)."""
    if isinstance(value, list):
        return [a for v in value for a in _arrays(v)]
    if isinstance(value, SelectedRows):
        return [value.rows, value.values]
    return [] if value is None else [value]


def _bits(value):
    return [(a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes()) for a in _arrays(value)]


def _sentinel(shape, dtype, fill):
    return np.full(shape, fill if np.dtype(dtype).kind == "f" else 77, dtype)


def _out_kernel(op, ins, attrs):
    """The op's meta rule and out-kernel on ``ins``: a fresh Meta's outputs handed over (new, C-contiguous arrays of
    its shapes (the array's length where the Meta's is -1) and dtypes, or SelectedRows of its dense shape, sharing no
    input's memory); any other's the sentinel buffers handed (scratch too), every element written (two fills)."""
    structured, ctx = registry.get(op).structured, KernelContext()
    meta = structured.meta(attrs, ins, ctx)
    inputs = [a for v in ins.values() for a in _arrays(v)]
    answers = []
    for fill in (np.nan, -7.25):
        outs = {}
        if not meta.fresh:
            outs = {s: _sentinel(shape, dtype, fill) for s, (shape, dtype) in meta.outputs.items()}
            outs.update({s: _sentinel(shape, dtype, fill) for s, (shape, dtype) in meta.scratch.items()})
        given = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        for slot, spec in meta.outputs.items():
            got = outs[slot]
            assert (got is given.get(slot)) != meta.fresh, (op, slot)
            specs, gots = (spec, got) if type(spec) is list else ([spec], [got])
            assert len(gots) == len(specs), (op, slot)
            for value, (shape, dtype) in zip(gots, specs):
                assert value.dtype == dtype and len(value.shape) == len(shape), (op, slot)
                assert all(n in (-1, m) for n, m in zip(shape, value.shape)), (op, slot, shape, value.shape)
                for a in _arrays(value):
                    assert a.flags.c_contiguous or isinstance(value, SelectedRows), (op, slot)
                    assert not meta.fresh or not any(np.shares_memory(a, v) for v in inputs), (op, slot)
        answers.append({s: outs[s] for s in meta.outputs})
        if meta.fresh:
            break
    for slot in meta.outputs:
        assert _bits(answers[0][slot]) == _bits(answers[-1][slot]), f"{op}: {slot} not filled completely"
    return answers[0], meta


def _same_as_kernel(op, ins, attrs):
    outs, meta = _out_kernel(op, ins, attrs)
    want = registry.get(op).kernel("cpu")(dict(ins), dict(attrs), KernelContext())
    assert set(outs) == set(want), op
    assert all(_bits(outs[s]) == _bits(want[s]) for s in outs), op
    return outs, meta


def _float_grads(outs):
    """A random gradient of each float output (a list's each)."""
    douts = {}
    for slot, value in outs.items():
        values = value if isinstance(value, list) else [value]
        if isinstance(values[0], np.ndarray) and values[0].dtype.kind == "f" and values[0].size:
            grads = [rng.uniform(-1, 1, v.shape).astype(v.dtype) for v in values]
            douts[f"{slot}@GRAD"] = grads if isinstance(value, list) else grads[0]
    return douts


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("family, case", ALL, ids=[c.id for _, c in ALL])
def test_out_kernels_hand_over_or_fill_every_output(family, case, dtype):
    """Every op case of the family in two dtypes, forward and gradient (on a random gradient of each float
    output): the Meta's outputs, the op's kernel's bits, and (float64) the case's reference values."""
    attrs = _attrs_with_defaults(case)
    ins = {slot: _in_dtype(v, dtype) for slot, v in case.inputs.items()}
    outs, meta = _same_as_kernel(case.op, ins, attrs)
    if dtype == "float64" and case.ref is not None:
        ref = case.ref(case.inputs, attrs)
        for slot in [s for s in ref if s in (case.outputs or ref)]:
            for got, want in zip(_arrays(outs[slot]), _arrays(ref[slot])):
                np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol, err_msg=case.op + slot)
    if case.op + "_grad" not in registry.all_op_types():
        return
    douts = _float_grads(outs)
    if not douts:  # (an int shuffle_batch's: no gradient)
        return
    grad = registry.get(case.op + "_grad")
    given = {**ins, **outs, **douts}
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    dins, _ = _same_as_kernel(grad.type, gins, attrs)
    if family == "rnn":  # (each input's gradient of its shape)
        for slot in ("Input", "PreState", "WeightList"):
            assert [a.shape for a in _arrays(dins[f"{slot}@GRAD"])] == [a.shape for a in _arrays(ins[slot])], slot


def _rnn_case(mode="LSTM"):
    return next(c for c in CASES["rnn"] if c.attrs["mode"] == mode)


@pytest.mark.parametrize("op", ["rnn", "rnn_grad"])
def test_rnn_dropout_in_training_is_refused_by_the_meta_rule(op):
    """dropout_prob > 0 with is_test False: Paddle draws the mask between layers, so pe refuses it in one line,
    from the meta rule, before any out-kernel runs; in a test (is_test) the same op computes."""
    case = _rnn_case()
    attrs = dict(_attrs_with_defaults(case), dropout_prob=0.25)
    meta = registry.get(op).structured.meta
    with pytest.raises(PeError, match=r"rnn: dropout_prob=0.25 between layers in training .* is not computed by pe"):
        meta(attrs, case.inputs, KernelContext())
    assert meta(dict(attrs, is_test=True), case.inputs, KernelContext()).fresh


def test_rnn_states_and_weight_gradients_are_lists_of_their_shapes():
    """LSTM's Meta: two states of [layers * directions, N, hidden]; a GRU's one; the weights' gradients one per
    weight, of its shape and dtype."""
    for mode, count in (("LSTM", 2), ("GRU", 1)):
        case = _rnn_case(mode)
        attrs, ins = _attrs_with_defaults(case), case.inputs
        meta = registry.get("rnn").structured.meta(attrs, ins, KernelContext())
        dirs = 2 if attrs["is_bidirec"] else 1
        state = ((attrs["num_layers"] * dirs, ins["Input"].shape[1], attrs["hidden_size"]), np.dtype("float64"))
        assert meta.outputs["State"] == [state] * count
        assert meta.outputs["Out"][0] == (*ins["Input"].shape[:2], dirs * attrs["hidden_size"])
        grad = registry.get("rnn_grad").structured.meta(attrs, {**ins, "Out": None}, KernelContext())
        assert grad.outputs["WeightList@GRAD"] == [(w.shape, w.dtype) for w in ins["WeightList"]]


def test_warprnnt_keeps_its_lattices_in_scratch_and_gives_only_its_outputs():
    """warprnnt's alpha, beta and float64 loss are the Meta's scratch: its kernel by name returns warprnntgrad and
    loss alone, loss in input's dtype."""
    case = CASES["warprnnt"][0]
    ins = {s: _in_dtype(v, "float32") for s, v in case.inputs.items()}
    meta = registry.get("warprnnt").structured.meta(_attrs_with_defaults(case), ins, KernelContext())
    assert set(meta.scratch) == {"alpha", "beta", "loss64"} and meta.scratch["alpha"][0] == ins["input"].shape[:3]
    got = registry.get("warprnnt").kernel("cpu")(ins, _attrs_with_defaults(case), KernelContext())
    assert set(got) == {"warprnntgrad", "loss"} and got["loss"].dtype == np.float32


@pytest.mark.parametrize("op", ["merge_selected_rows", "get_tensor_from_selected_rows", "split_selected_rows"])
def test_a_dense_x_is_refused_by_the_meta_rule(op):
    attrs = dict(registry.get(op).default_attrs(), height_sections=[2, 2])
    with pytest.raises(PeError, match=rf"{op}: X must be row-sparse .* got a dense array of shape \[4, 3\]"):
        registry.get(op).structured.meta(attrs, {"X": np.zeros((4, 3))}, KernelContext())


def test_selected_rows_metas_describe_their_outputs_by_their_dense_shape():
    """merge's Out: X's dense shape; split's: a [height, ...] per section; get_tensor's: its rows -1, the values'
    own count of rows in the array handed over."""
    x = SelectedRows(np.array([5, 1, 5]), np.arange(12.0).reshape(3, 4), 8)
    f64 = np.dtype("float64")
    meta = registry.get("merge_selected_rows").structured.meta({}, {"X": x}, KernelContext())
    assert meta.fresh and meta.outputs == {"Out": ((8, 4), f64)}
    meta = registry.get("split_selected_rows").structured.meta({"height_sections": [3, 5]}, {"X": x}, None)
    assert meta.outputs == {"Out": [((3, 4), f64), ((5, 4), f64)]}
    meta = registry.get("get_tensor_from_selected_rows").structured.meta({}, {"X": x}, None)
    assert meta.outputs == {"Out": ((-1, 4), f64)}
    outs = {}
    registry.get("get_tensor_from_selected_rows").structured.cpu({"X": x}, outs, {}, meta)
    assert outs["Out"].shape == (3, 4) and not np.shares_memory(outs["Out"], x.values)
    np.testing.assert_array_equal(outs["Out"], x.values)


def test_a_shuffle_batch_step_decides_its_meta_once_and_draws_from_each_runs_seed():
    """A shuffle_batch step run with three seeds of one shape: one Meta; each run's Out, ShuffleIdx and SeedOut what
    the op's kernel gives for that seed."""
    outputs = {"Out": ["y"], "ShuffleIdx": ["idx"], "SeedOut": ["seed_out"]}
    step = _step("shuffle_batch", {"X": ["x"], "Seed": ["seed"]}, {}, outputs)
    x = rng.standard_normal((4, 3, 2))
    kernel, orders = registry.get("shuffle_batch").kernel("cpu"), set()
    for seed in (1, 2, 3):
        values = Values({"x": x, "seed": np.array([seed], np.int64)})
        run_step(step, values)
        want = kernel({"X": x, "Seed": np.array([seed], np.int64)}, {"startup_seed": 0})
        for name, slot in (("y", "Out"), ("idx", "ShuffleIdx"), ("seed_out", "SeedOut")):
            assert values[name].tobytes() == want[slot].tobytes(), (seed, slot)
        orders.add(values["idx"].tobytes())
    assert len(orders) == 3 and len(inspect.unwrap(step.kernel).metas) == 1


def test_an_rnn_step_decides_its_meta_once_per_shape_signature():
    """An rnn step (list inputs and outputs) run twice on values of one shape: one Meta, the op kernel's bits."""
    case = _rnn_case("GRU")
    ins, attrs = case.inputs, _attrs_with_defaults(case)
    names = {s: [f"{s}{i}" for i in range(len(v))] if isinstance(v, list) else [s.lower()] for s, v in ins.items()}
    outputs = {"Out": ["out"], "State": ["h"], "Reserve": ["reserve"], "DropoutState": ["dropout_state"]}
    step = _step("rnn", names, attrs, outputs)
    for scale in (1.0, 0.5):
        feed = {}
        for slot, value in ins.items():
            values = value if isinstance(value, list) else [value]
            feed.update({n: v * scale if v.dtype.kind == "f" else v for n, v in zip(names[slot], values)})
        values = Values(feed)
        run_step(step, values)
        scaled = {s: [feed[n] for n in names[s]] if isinstance(ins[s], list) else feed[names[s][0]] for s in ins}
        want = registry.get("rnn").kernel("cpu")(scaled, dict(attrs), KernelContext())
        assert values["out"].tobytes() == want["Out"].tobytes() and values["h"].tobytes() == want["State"][0].tobytes()
    assert len(inspect.unwrap(step.kernel).metas) == 1
