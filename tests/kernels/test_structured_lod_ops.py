"""The structured kernels of the remaining LoD and sequence ops (issue 95): lod_reset, sequence_concat, sequence_slice
(shapes/sequence_shape.py), sequence_enumerate, sequence_scatter, row_conv (shapes/sequence_window.py),
sequence_unpad, sequence_mask, sequence_erase (shapes/sequence_rows.py), im2sequence (shapes/sequence_image.py),
chunk_eval, edit_distance (shapes/sequence_metric.py), the text-matching ops (shapes/text_matching.py),
filter_by_instag (shapes/instag.py) and the fused sequence ops (shapes/sequence_fused.py), with their grad ops. Their out-kernels write every element of the buffers they
are handed (or hand over a new array of the Meta's dtype, where the values give a length), the reference's values;
their meta rules read the call's LoD, never values, so a step keeps a Meta per signature and LoD."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(29)


def _lod_of(value):
    if isinstance(value, list):
        lods = [_lod_of(v) for v in value]
        return lods if any(lods) else None
    lod = value.lod() if hasattr(value, "lod") else None
    return [list(level) for level in lod] if lod else None


def _sentinels(meta, ins, fill):
    """The buffers the out-kernel is handed: each of the Meta's outputs full of ``fill`` (ints: 77 or -5, one per
    fill), a list output's one per variable; an alias, its input; none for a ``fresh`` variant."""
    if meta.fresh:
        return {}
    outs = {}
    for slot, spec in meta.outputs.items():
        if slot in meta.aliases:
            outs[slot] = ins[meta.aliases[slot]]
            continue
        specs = spec if type(spec) is list else [spec]
        value = lambda dtype: fill if np.dtype(dtype).kind in "fc" else (77 if np.isnan(fill) else -5)  # noqa: E731
        buffers = [np.full(shape, value(dtype), dtype) for shape, dtype in specs]
        outs[slot] = buffers if type(spec) is list else buffers[0]
    return outs


def _matches(array, spec):
    shape, dtype = spec
    return (
        array.ndim == len(shape)
        and all(s in (-1, a) for s, a in zip(shape, array.shape))
        and array.dtype == dtype
        and array.flags.c_contiguous
    )


def _filled(op, ins, attrs, lod):
    """The op's meta rule and out-kernel on ``ins`` (LoD ``lod``) into buffers of two sentinel patterns: the
    outputs (each the buffer handed, every element written; a fresh one of the Meta's shape and dtype, no input's
    memory) and the LoD the out-kernel set, the same for both."""
    opdef = registry.get(op)
    answers = []
    for fill in (np.nan, -7.25):
        ctx = KernelContext(lod=dict(lod))
        meta = opdef.structured.meta(attrs, ins, ctx)
        outs = _sentinels(meta, ins, fill)
        given = dict(outs)
        told = getattr(opdef.structured.cpu, "takes_context", False)
        args = (ins, outs, dict(attrs), meta) + ((ctx,) if told else ())
        assert opdef.structured.cpu(*args) is None, f"{op}: the out-kernel returned something"
        for slot, spec in meta.outputs.items():
            got = outs[slot]
            if hasattr(got, "rows"):  # (a row-sparse W@GRAD: a SelectedRows of the Meta's height)
                assert meta.fresh and got.height == spec[0][0] and got.values.dtype == spec[1]
                continue
            if meta.fresh:
                assert _matches(got, spec), (op, slot, got.shape, got.dtype, spec)
                assert not any(np.shares_memory(got, v) for v in ins.values() if isinstance(v, np.ndarray))
            elif type(spec) is list:
                assert all(a is b and _matches(a, s) for a, b, s in zip(got, given[slot], spec)), (op, slot)
            else:
                assert got is given[slot] and _matches(got, spec), (op, slot)
        answers.append((outs, repr(ctx.out_lod)))
    (first, lod_a), (second, lod_b) = answers
    assert lod_a == lod_b
    for slot, got in first.items():
        pairs = zip(got, second[slot]) if type(got) is list else [(got, second[slot])]
        pairs = [(getattr(a, "values", a), getattr(b, "values", b)) for a, b in pairs]
        assert all(a.tobytes() == b.tobytes() for a, b in pairs), f"{op}: {slot} not filled completely"
    return first, answers[0][1]


CASES_HERE = CASES["lod ops"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", CASES_HERE, ids=[f"{c.id}-{i}" for i, c in enumerate(CASES_HERE)])
def test_lod_op_out_kernels_fill_what_they_are_handed(case):
    """Every op case of the family, forward and (where it has one) gradient: the buffers handed filled completely,
    a fresh output of the Meta's dtype, the reference's values."""
    attrs = _attrs_with_defaults(case)
    ins = {k: [np.asarray(a) for a in v] if isinstance(v, list) else np.asarray(v) for k, v in case.inputs.items()}
    lod = {k: lod for k, v in case.inputs.items() if (lod := _lod_of(v))}
    outs, _ = _filled(case.op, ins, attrs, lod)
    if case.ref is not None:
        for slot, want in case.ref(case.inputs, attrs).items():
            got = outs.get(slot)
            if hasattr(want, "rows"):  # (a row-sparse gradient: its rows and their values)
                np.testing.assert_array_equal(got.rows, want.rows)
                got, want = got.values, want.values
            if got is not None and not isinstance(want, list):
                np.testing.assert_allclose(got, np.asarray(want), rtol=case.rtol, atol=case.atol)
    grad = registry.get(case.op + "_grad") if case.op + "_grad" in registry.all_op_types() else None
    if not case.grad or grad is None or grad.structured is None:
        return
    given = {**ins, **outs, "Out@GRAD": rng.uniform(-1, 1, np.shape(outs["Out"])).astype(outs["Out"].dtype)}
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    douts, _ = _filled(grad.type, gins, attrs, lod)
    for slot in douts:
        assert slot.endswith("@GRAD")


def _lodded(name, x, lengths):
    return Values({name: x}, {name: [np.concatenate([[0], np.cumsum(lengths)]).tolist()]})


def test_a_row_conv_step_keeps_a_meta_per_lod():
    """A row_conv step run on rows of one shape with two LoDs, each twice: each run's Out is row_conv's over that
    LoD's sequences (the kernel by name, its rule run on the call), never over the other's."""
    step = _step("row_conv", {"X": ["x"], "Filter": ["w"]}, {})
    x, w = rng.standard_normal((7, 3)), rng.standard_normal((2, 3))
    kernel = registry.get("row_conv").kernel("cpu")
    for lengths in ([3, 4], [1, 2, 4], [3, 4], [1, 2, 4]):
        values = _lodded("x", x, lengths)
        values["w"] = w
        run_step(step, values)
        want = kernel({"X": x, "Filter": w}, {}, KernelContext(lod={"X": values.lods["x"]}))["Out"]
        assert values["y"].tobytes() == want.tobytes()
    assert np.any(want != kernel({"X": x, "Filter": w}, {}, KernelContext(lod={"X": [[0, 3, 7]]}))["Out"])


def test_a_sequence_concat_step_sets_the_lod_of_each_call():
    """sequence_concat as a step on inputs of one shape with two LoDs: Out's rows and LoD joined per sequence."""
    step = _step("sequence_concat", {"X": ["a", "b"]}, {})
    a, b = rng.standard_normal((4, 2)), rng.standard_normal((3, 2))
    for la, lb in (([1, 3], [2, 1]), ([3, 1], [0, 3]), ([1, 3], [2, 1])):
        offs = [np.concatenate([[0], np.cumsum(v)]).tolist() for v in (la, lb)]
        values = Values({"a": a, "b": b}, {"a": [offs[0]], "b": [offs[1]]})
        run_step(step, values)
        want = np.concatenate([a[: la[0]], b[: lb[0]], a[la[0] :], b[lb[0] :]])
        assert values["y"].tobytes() == want.tobytes()
        assert values.lods["y"] == [[0, la[0] + lb[0], 7]]


def test_a_sequence_erase_step_takes_its_rows_from_each_calls_values():
    """sequence_erase (a fresh variant: its rows are its values') as a step on ids of one shape and LoD whose values
    differ: each run keeps the rows of its own ids, with their LoD."""
    step = _step("sequence_erase", {"X": ["x"]}, {"tokens": [2, 5]})
    for ids in ([[1], [2], [3], [5], [2], [4]], [[2], [2], [7], [1], [5], [5]], [[1], [2], [3], [5], [2], [4]]):
        x = np.array(ids, np.int64)
        values = _lodded("x", x, [2, 4])
        run_step(step, values)
        keep = ~np.isin(x[:, 0], [2, 5])
        assert values["y"].tobytes() == x[keep].tobytes() and values["y"].shape == (int(keep.sum()), 1)
        assert values.lods["y"] == [[0, int(keep[:2].sum()), int(keep.sum())]]


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_rank_table_out_kernels_fill_what_they_are_handed(dtype):
    """max_sequence_len, reorder_lod_tensor_by_rank, shrink_rnn_memory and their gradients on a rank table (a value
    their rules never read): the buffers handed filled completely; the rows the table orders and keeps."""
    x = rng.uniform(-3, 3, (9, 2)).astype(dtype)
    lod = {"X": [[0, 2, 7, 7, 9]]}
    table = registry.get("lod_rank_table").kernel("cpu")({"X": x}, {"level": 0}, KernelContext(lod=lod))["Out"]
    outs, _ = _filled("max_sequence_len", {"RankTable": table}, {}, {})
    assert outs["Out"].tolist() == [5]
    ordered, _ = _filled("reorder_lod_tensor_by_rank", {"X": x, "RankTable": table}, {}, lod)
    assert ordered["Out"].tobytes() == x[[2, 3, 4, 5, 6, 0, 1, 7, 8]].tobytes()
    dout = rng.uniform(-1, 1, x.shape).astype(dtype)
    back, _ = _filled("reorder_lod_tensor_by_rank_grad", {"X": x, "RankTable": table, "Out@GRAD": dout}, {}, lod)
    assert back["X@GRAD"][[2, 3, 4, 5, 6, 0, 1, 7, 8]].tobytes() == dout.tobytes()
    running = {"X": ordered["Out"], "I": np.array([2]), "RankTable": table}
    shrunk, _ = _filled("shrink_rnn_memory", running, {}, {"X": [[0, 5, 7, 9, 9]]})
    assert shrunk["Out"].tobytes() == ordered["Out"][:5].tobytes()
    grads, _ = _filled("shrink_rnn_memory_grad", {"X": ordered["Out"], "Out@GRAD": dout[:2]}, {}, {})
    assert grads["X@GRAD"].tobytes() == np.concatenate([dout[:2], np.zeros((7, 2), dtype)]).tobytes()
