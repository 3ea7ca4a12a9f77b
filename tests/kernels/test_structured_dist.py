"""Structured kernels of the parameter-server, parameter-service, reader and py_func ops (issue 95): the trainer's
id and table ops compute into the buffers they are handed (merge_ids, ref_by_trainer_id, lookup_sparse_table) or hand
over ids whose count the values give (split_ids, fresh); the ops that talk to servers, read from Python readers or
call Python say so (``Structured.python``), so a planned step runs them between its segments, and refuse what pe
does not run in the same line through their kernels and executor steps."""

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.base.selected_rows import SelectedRows
from pe_cli.base.tensor_array import TensorArray
from pe_cli.kernels import py_callables
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.structured import allocate
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES, CONVERTED

FAMILY = ("ids and sparse tables", "parameter server", "parameter services", "readers", "py_func", "rank table arrays")
FAMILY += ("program blocks",)
PYTHON = CONVERTED["parameter server"] | CONVERTED["parameter services"] | {"read", "py_func", "lookup_sparse_table"}
PYTHON |= CONVERTED["program blocks"]
OP_CASES = CASES["ids and sparse tables"] + CASES["py_func"]


def _attrs(op, **attrs):
    return dict(registry.get(op).default_attrs(), **attrs)


def _run(op, ins, attrs, ctx=None, fill=None):
    """The op's meta rule and CPU out-kernel into buffers allocated for its Meta (each filled with ``fill`` first
    where given): (meta, outputs)."""
    s = registry.get(op).structured
    ctx = KernelContext() if ctx is None else ctx
    meta = s.meta(attrs, ins, ctx)
    outs = allocate(meta, ins)
    if fill is not None:
        for v in outs.values():
            for b in v if isinstance(v, list) else [v]:
                b[...] = fill
    extra = (ctx,) if getattr(s.cpu, "takes_context", False) else ()
    assert s.cpu(ins, outs, attrs, meta, *extra) is None
    return meta, outs


def test_every_op_of_the_family_is_structured_and_those_that_touch_python_say_so():
    ops = set().union(*(CONVERTED[f] for f in FAMILY))
    assert all(registry.get(op).structured is not None for op in ops)
    assert {op for op in ops if registry.get(op).structured.python} == PYTHON


@pytest.mark.parametrize("case", OP_CASES, ids=[c.id for c in OP_CASES])
def test_the_out_kernels_give_each_op_cases_values(case):
    attrs = _attrs(case.op, **case.attrs)
    ctx = KernelContext(output_counts=dict(case.num_outputs or {}))
    _, outs = _run(case.op, dict(case.inputs), attrs, ctx)
    for slot, value in case.ref(case.inputs, attrs).items():
        got, value = (outs[slot], value) if isinstance(value, list) else ([outs[slot]], [value])
        assert len(got) == len(value) and all(np.array_equal(g, v) for g, v in zip(got, value)), slot


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_merge_ids_fills_every_row_of_the_buffers_it_is_handed(dtype):
    ins = {
        "Ids": [np.array([[3], [0], [3]], np.int64), np.array([[5]], np.int64), np.zeros((0, 1), np.int64)],
        "Rows": [np.array([[0], [3]], np.int64), np.array([[5], [3]], np.int64)],
        "X": [np.array([[1, 2], [3, 4]], dtype), np.array([[5, 6], [7, 8]], dtype)],
    }
    answers = [_run("merge_ids", ins, _attrs("merge_ids"), fill=fill)[1]["Out"] for fill in (0, 99)]
    want = [np.array([[3, 4], [1, 2], [3, 4]], dtype), np.array([[5, 6]], dtype), np.zeros((0, 2), dtype)]
    for got in answers:
        assert [g.tobytes() for g in got] == [w.tobytes() for w in want] and all(g.dtype == dtype for g in got)
    with pytest.raises(PeError, match=r"merge_ids: ids \[9\] are in no Rows tensor"):
        _run("merge_ids", dict(ins, Ids=[np.array([[9]], np.int64)]), _attrs("merge_ids"))


def test_merge_ids_of_rows_of_no_values_gives_its_rows_of_none():
    """X of width 0 ([rows, 0], as Fluid's kernel sizes Out [ids, X's width]): Out [3, 0] and [0, 0] (main failed with
    numpy's ValueError: cannot reshape array of size 0 into shape (0))."""
    ins = {
        "Ids": [np.array([[3], [0], [3]], np.int64), np.zeros((0, 1), np.int64)],
        "Rows": [np.array([[0], [3]], np.int64)],
        "X": [np.zeros((2, 0), np.float32)],
    }
    for kernel in (registry.get("merge_ids").kernel("cpu"), registry.get("merge_ids").step_kernel("cpu")):
        outs = kernel(ins, _attrs("merge_ids"), KernelContext())
        assert [o.shape for o in outs["Out"]] == [(3, 0), (0, 0)] and outs["Out"][0].dtype == np.float32


def test_ref_by_trainer_id_copies_x_of_trainer_id_into_its_buffer_or_its_own_copy():
    xs = [np.full((2, 3), k, np.float32) for k in range(3)]
    for t in range(3):
        meta, outs = _run("ref_by_trainer_id", {"X": xs, "TrainerId": np.array([t])}, {}, fill=-1)
        assert meta.variant == "copy" and np.array_equal(outs["Out"], xs[t]) and outs["Out"] is not xs[t]
    odd = [np.ones((2,), np.int32), np.arange(6.0).reshape(2, 3)[:, ::2]]
    meta, outs = _run("ref_by_trainer_id", {"X": odd, "TrainerId": np.array([1], np.int64)}, {})
    assert meta.fresh and outs["Out"].dtype == np.float64 and np.array_equal(outs["Out"], odd[1])
    assert not np.shares_memory(outs["Out"], odd[1])
    with pytest.raises(PeError, match="TrainerId 3 is outside X's 3 tensors"):
        _run("ref_by_trainer_id", {"X": xs, "TrainerId": np.array([3])}, {})


@pytest.mark.parametrize("is_test", [False, True])
def test_lookup_sparse_table_fills_its_rows_and_grows_the_table(is_test):
    """Every row written (an id the table lacks at test time: zeros over the sentinel); the table's rows grow by
    the ids given a row, its state."""
    values = np.arange(8.0).reshape(4, 2)
    table = SelectedRows(np.array([4, 2], np.int64), values, 100)
    ids = np.array([[2], [9], [4], [9]], np.int64)
    meta, outs = _run(
        "lookup_sparse_table", {"W": table, "Ids": ids}, _attrs("lookup_sparse_table", is_test=is_test), fill=np.nan
    )
    assert meta.outputs["Out"] == ((4, 2), np.dtype(np.float64))
    nine = [0.0, 0.0] if is_test else [4.0, 5.0]
    assert np.array_equal(outs["Out"], np.array([[2.0, 3.0], nine, [0.0, 1.0], nine]))
    assert table.rows.tolist() == ([4, 2] if is_test else [4, 2, 9])
    with pytest.raises(PeError, match=r"lookup_sparse_table: W must be a row-sparse table \(SelectedRows\)"):
        registry.get("lookup_sparse_table").structured.meta({}, {"W": values, "Ids": ids}, KernelContext())


def test_split_ids_hands_over_the_ids_of_each_server_and_a_row_sparse_ids_rows():
    ids = [np.array([[0], [5], [2], [5]], np.int64), np.array([[7], [2], [3]], np.int32)]
    meta, outs = _run("split_ids", {"Ids": ids}, {}, KernelContext(output_counts={"Out": 3}))
    assert meta.fresh and meta.outputs["Out"] == [((-1, 1), np.dtype(np.int64))] * 3
    assert [o.ravel().tolist() for o in outs["Out"]] == [[0, 3], [7], [2, 5]]
    assert all(o.dtype == np.int64 and o.shape[1:] == (1,) for o in outs["Out"])
    sr = SelectedRows(np.array([3, 0, 7, 3], np.int64), np.arange(8.0).reshape(4, 2), 10)
    _, outs = _run("split_ids", {"Ids": [sr]}, {}, KernelContext(output_counts={"Out": 2}))
    assert [o.rows.tolist() for o in outs["Out"]] == [[0], [3, 7, 3]]
    assert np.array_equal(outs["Out"][1].values, [[6.0, 7.0], [4.0, 5.0], [6.0, 7.0]])


def test_recv_and_the_services_say_their_outputs_as_fluid_infers_them():
    recv = registry.get("recv").structured.meta(
        _attrs("recv", shapes=[[2, 3], [4]], dtype="float64"), {"X": []}, KernelContext()
    )
    assert recv.fresh and recv.outputs["Out"] == [((2, 3), np.dtype(np.float64)), ((4,), np.dtype(np.float64))]
    ids = [np.zeros((5, 1), np.int64), np.zeros((2, 3), np.int64)]
    pull = registry.get("pull_sparse").structured.meta(_attrs("pull_sparse", EmbeddingDim=8), {"Ids": ids}, None)
    assert pull.outputs["Out"] == [((5, 8), np.dtype(np.float32)), (None, None)]  # (the second lacks the last 1)
    pull2 = registry.get("pull_sparse_v2").structured.meta(_attrs("pull_sparse_v2", EmbeddingDim=8), {"Ids": ids}, None)
    assert pull2.outputs["Out"] == [((5, 1, 8), np.dtype(np.float32)), ((2, 3, 8), np.dtype(np.float32))]
    table = registry.get("distributed_lookup_table").structured.meta(
        _attrs("distributed_lookup_table"), {"Ids": ids, "W": np.zeros((10, 4), np.float32)}, None
    )
    assert table.outputs["Outputs"] == [((5, 4), np.dtype(np.float32)), ((2, 4), np.dtype(np.float32))]


@pytest.mark.parametrize(
    "op, ins, attrs, line",
    [
        ("send", {"X": [np.ones(2)]}, {}, "send: an op of Fluid's gRPC parameter-server program (it has no tags)"),
        ("recv", {"X": []}, {}, "recv: an op of Fluid's gRPC parameter-server program (it has no tags)"),
        ("listen_and_serv", {"X": []}, {}, "listen_and_serv runs only as a parameter server's program"),
        ("prefetch", {"X": [np.ones((2, 1), np.int64)]}, {}, "op 'prefetch' fetches table rows from the servers"),
        ("checkpoint_notify", {}, {}, "op 'checkpoint_notify' asks the servers"),
        ("recv_save", {}, {}, "op 'recv_save' receives"),
        ("fl_listen_and_serv", {"X": []}, {}, "op 'fl_listen_and_serv' serves federated trainers"),
        ("pull_box_sparse", {"Ids": [np.ones((2, 1), np.int64)]}, {}, "op 'pull_box_sparse' needs BoxPS"),
        ("push_dense", {"Ids": [np.ones((2, 1), np.int64)]}, {}, "op 'push_dense' needs pslib"),
    ],
)
def test_what_pe_does_not_run_is_refused_in_one_line_by_kernel_and_step(op, ins, attrs, line):
    full = _attrs(op, **attrs)
    for kernel in (registry.get(op).kernel("cpu"), registry.get(op).step_kernel("cpu")):
        with pytest.raises(PeError) as e:
            kernel(dict(ins), dict(full), KernelContext())
        assert str(e.value).startswith(line) and "\n" not in str(e.value)


def test_the_barriers_and_a_checkpoint_with_no_server_do_nothing():
    assert registry.get("fetch_barrier").kernel("cpu")({"X": []}, _attrs("fetch_barrier")) == {}
    assert registry.get("checkpoint_notify").kernel("cpu")({}, _attrs("checkpoint_notify", epmap=[])) == {}


def test_the_readers_hand_on_their_marker_and_read_writes_nothing():
    _, outs = _run("create_py_reader", {}, _attrs("create_py_reader"))
    assert outs["Out"].shape == (0,) and outs["Out"].dtype == np.int32
    marker = np.zeros((0,), np.int32)
    step = registry.get("create_double_buffer_reader").step_kernel("cpu")
    assert step({"UnderlyingReader": marker}, _attrs("create_double_buffer_reader"), KernelContext())["Out"] is marker
    assert registry.get("read").kernel("cpu")({"Reader": marker}, _attrs("read")) == {}


def test_py_func_hands_over_what_the_function_returns_with_the_lods_it_reads():
    seen = []

    def fwd(values, lods):
        seen.append(lods)
        return [values[0] * 2, values[1][::-1]]

    fid = py_callables.register(fwd)
    xs = [np.arange(3.0), np.arange(4, dtype=np.int32)]
    step = registry.get("py_func").step_kernel("cpu")
    for lod in ([None, [[0, 1, 4]]], [[[0, 3]], None]):
        ctx = KernelContext(lod={"X": lod}, output_counts={"Out": 2})
        outs = step({"X": xs}, _attrs("py_func", forward_callable_id=fid), ctx)
        assert np.array_equal(outs["Out"][0], [0.0, 2.0, 4.0]) and np.array_equal(outs["Out"][1], [3, 2, 1, 0])
        assert seen[-1] == lod


def _table(lod, level=0):
    x = np.zeros((lod[-1][-1], 1))
    return registry.get("lod_rank_table").kernel("cpu")({"X": x}, {"level": level}, KernelContext(lod={"X": lod}))[
        "Out"
    ]


def test_lod_rank_table_hands_over_the_table_of_its_level_and_refuses_a_level_its_lod_lacks():
    """A rank table out (no tensor: fresh, (None, None)), made from the run's LoD of X, longest first (stable), through
    the out-kernel and the executor's step; a level X's LoD lacks, or no LoD, refused in one line."""
    lod = [[0, 1, 4], [0, 2, 5, 6, 9]]
    x = np.zeros((9, 1), np.float32)
    meta, outs = _run("lod_rank_table", {"X": x}, _attrs("lod_rank_table", level=1), KernelContext(lod={"X": lod}))
    assert meta.fresh and meta.outputs == {"Out": (None, None)}
    assert outs["Out"].items() == [(1, 3), (3, 3), (0, 2), (2, 1)]
    assert _table(lod, 0).items() == [(1, 3), (0, 1)]
    step = registry.get("lod_rank_table").step_kernel("cpu")
    with pytest.raises(PeError, match=r"lod_rank_table: level 2 is not a level of X's LoD \(2 levels\)"):
        step({"X": x}, _attrs("lod_rank_table", level=2), KernelContext(lod={"X": lod}))
    with pytest.raises(PeError, match="lod_rank_table: X has no LoD"):
        step({"X": x}, _attrs("lod_rank_table"), KernelContext())


def test_lod_tensor_to_array_and_back_hand_over_the_steps_and_the_sequences_with_their_lods():
    """A tensor array out (no tensor: fresh, (None, None)) and the tensor it makes back, of the first item's row
    shape and dtype, its LoD the table's, through the kernels and executor steps."""
    lod = [[0, 1, 4], [0, 2, 5, 6, 9]]
    x = np.arange(27, dtype=np.float32).reshape(9, 3)
    for level in (0, 1):
        table = _table(lod, level)
        ctx = KernelContext(lod={"X": lod})
        meta, outs = _run("lod_tensor_to_array", {"X": x, "RankTable": table}, {}, ctx)
        array = outs["Out"]
        assert meta.fresh and meta.outputs == {"Out": (None, None)} and isinstance(array, TensorArray)
        back = KernelContext()
        meta, outs = _run("array_to_lod_tensor", {"X": array, "RankTable": table}, {}, back)
        assert meta.outputs == {"Out": ((-1, 3), np.dtype(np.float32))}
        assert np.array_equal(outs["Out"], x) and back.out_lod == {"Out": lod}
    step = registry.get("array_to_lod_tensor").step_kernel("cpu")
    with pytest.raises(PeError, match="array_to_lod_tensor: the array holds no tensor"):
        step({"X": TensorArray([None]), "RankTable": _table([[0, 2]])}, {}, KernelContext())


def test_the_block_ops_say_every_output_unknown_and_run_between_segments():
    """run_program's and DynamicRNN's outputs are what their blocks write: fresh, (None, None) per variable; a
    planned step runs them as Python launches (their values: tests/fluid/test_run_program.py, the DynamicRNN
    layer tests)."""
    counts = {"Out": 2, "OutScope": 1, "X@GRAD": 1, "Params@GRAD": 0, "outputs": 1, "step_scopes": 1, "writes": 0}
    ctx = KernelContext(output_counts=counts)
    for op in sorted(CONVERTED["program blocks"]):
        s = registry.get(op).structured
        meta = s.meta(_attrs(op), {}, ctx)
        assert s.python and meta.fresh and s.cpu.takes_context and s.cpu.launches is None
        assert all(specs == [(None, None)] * counts.get(slot, 0) for slot, specs in meta.outputs.items()), op
