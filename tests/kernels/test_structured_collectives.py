"""Structured kernels of the collective ops (issue 95): Fluid's ring ops and Paddle 2.x's pass X on as it is on a ring
of one process (``Meta.aliases``), their meta rules give Paddle's shapes for an ``nranks`` of several, their
out-kernels refuse a ring of several (``nranks``, or PADDLE_TRAINERS_NUM read on every run) and are marked
``Structured(python=True)``, so a planned step runs them between its segments; c_embedding and its gradient fill the
buffers they are handed."""

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep
from pe_cli.executor.step_plan import DevicePlan
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.structured import allocate
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES, CONVERTED

RING_OPS = CONVERTED["collectives"]
SMALL = {"all_reduce", "reduce", "all_gather", "all_to_all", "reduce_scatter"}
SETUP = {"c_gen_nccl_id", "c_comm_init", "c_comm_init_all"}
WAITS = {"c_wait_comm", "c_wait_compute"}
rng = np.random.default_rng(95)


def _attrs(op, **attrs):
    return dict(registry.get(op).default_attrs(), **attrs)


def _run(op, ins, attrs):
    """The op's meta rule and CPU out-kernel into the outputs allocated for its Meta: (meta, outputs)."""
    s = registry.get(op).structured
    meta = s.meta(attrs, ins, KernelContext())
    outs = allocate(meta, ins)
    assert s.cpu(ins, outs, attrs, meta) is None
    return meta, outs


def _ins(op, x):
    return (
        {"X": [x, x[:1]]} if op in WAITS else {} if op in SETUP - {"c_comm_init"} else {"x" if op in SMALL else "X": x}
    )


@pytest.mark.parametrize("case", CASES["collectives"], ids=[c.id for c in CASES["collectives"]])
def test_the_out_kernels_give_each_op_cases_values(case):
    """On a ring of one every ring op's Out is the case's, X itself (a wait's: a new list of X's values)."""
    attrs = _attrs(case.op, **case.attrs)
    ins = dict(case.inputs)
    meta, outs = _run(case.op, ins, attrs)
    for slot, value in case.ref(case.inputs, attrs).items():
        if isinstance(value, list):
            assert type(outs[slot]) is list and outs[slot] is not ins["X"]
            assert len(outs[slot]) == len(value) and all(g is v for g, v in zip(outs[slot], ins["X"]))
        else:
            assert outs[slot] is ins[meta.aliases[slot]] and np.array_equal(outs[slot], value)


def test_the_ring_ops_say_they_touch_python_and_a_planned_step_keeps_them_out_of_segments():
    """Every ring op is marked ``python`` (it reads the environment's ring when it runs); c_embedding is not."""
    marked = {t for t in registry.all_op_types() if getattr(registry.get(t).structured, "python", False)}
    assert RING_OPS <= marked and not marked & CONVERTED["c_embedding"]
    program = Program()
    block = program.global_block()
    block.create_var(name="x")
    block.create_var(name="y")
    block.append_op("c_allreduce_sum", {"X": ["x"]}, {"Out": ["y"]}, {})
    assert not DevicePlan._plannable(OpStep(block.ops[0], CPUPlace()), {})


@pytest.mark.parametrize(
    "op, shape, nranks, want",
    [
        ("c_allgather", (3, 4), 2, (6, 4)),
        ("all_gather", (3, 4), 3, (9, 4)),
        ("c_reducescatter", (4, 3), 2, (2, 3)),
        ("reduce_scatter", (3, 4), 2, (-1, 4)),
        ("c_scatter", (6, 2), 3, (2, 2)),
        ("c_concat", (3, 4), 2, (3, 8)),
        ("c_split", (3, 4), 2, (3, 2)),
        ("c_split", (3, 5), 2, (3, -1)),
        ("c_allreduce_sum", (3, 4), 2, (3, 4)),
        ("c_concat", (3, 4), 1, (3, 4)),
        ("c_concat", (3, 4), 0, (3, 4)),
    ],
)
def test_the_meta_rules_give_paddles_shapes_for_nranks(op, shape, nranks, want):
    """nranks shapes Out as Paddle's InferShape does (-1 where X's dim does not divide); a ring of one: X as it is."""
    x = np.zeros(shape, np.float32)
    meta = registry.get(op).structured.meta(_attrs(op, nranks=nranks), {"x" if op in SMALL else "X": x}, None)
    out = "out" if op in SMALL else "Out"
    assert meta.outputs[out] == (want, np.dtype(np.float32))
    assert (out in meta.aliases) == (want == shape)


@pytest.mark.parametrize("op", sorted(RING_OPS))
def test_a_ring_of_several_is_refused_by_the_out_kernel_before_anything_is_written(op, monkeypatch):
    """nranks 2 (where the op has it) or PADDLE_TRAINERS_NUM=2: the one-line refusal, from the out-kernel."""
    x = rng.uniform(size=(4, 2))
    if "nranks" in registry.get(op).attrs:
        with pytest.raises(PeError, match="nranks=2"):
            _run(op, _ins(op, x), _attrs(op, nranks=2))
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    with pytest.raises(PeError, match="PADDLE_TRAINERS_NUM=2"):
        _run(op, _ins(op, x), _attrs(op))


def test_an_executor_step_reads_the_ring_on_every_run(monkeypatch):
    """A step keeps its Meta per shape signature, yet a ring of several set after its first run is refused."""
    step = registry.get("c_allreduce_sum").step_kernel("cpu")
    x = rng.uniform(size=(2, 3))
    assert step({"X": x}, _attrs("c_allreduce_sum"), KernelContext())["Out"] is x
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    with pytest.raises(PeError, match="PADDLE_TRAINERS_NUM=2"):
        step({"X": x}, _attrs("c_allreduce_sum"), KernelContext())


def test_the_set_up_ops_give_an_empty_ring_id():
    meta, outs = _run("c_gen_nccl_id", {}, _attrs("c_gen_nccl_id"))
    assert outs["Out"].shape == (0,) and outs["Out"].dtype == np.uint8


def _embedding_ins(w_dtype, ids_dtype):
    w = rng.uniform(-1, 1, size=(6, 3)).astype(w_dtype)
    ids = np.array([[0, 3, 5], [9, 12, -1]], ids_dtype)
    return w, ids


@pytest.mark.parametrize("w_dtype", ["float32", "float64"])
@pytest.mark.parametrize("ids_dtype", ["int32", "int64"])
@pytest.mark.parametrize("start", [0, 4, 20])
def test_c_embeddings_out_kernels_fill_the_buffers_they_are_handed(w_dtype, ids_dtype, start):
    """Out and W@GRAD, in buffers of two sentinel patterns: every element written, the same bits, the rows of this
    rank's slice (zeros outside it) and their gradients' sums."""
    w, ids = _embedding_ins(w_dtype, ids_dtype)
    attrs = _attrs("c_embedding", start_index=start, vocab_size=16)
    dout = rng.uniform(-1, 1, size=(2, 3, 3)).astype(w_dtype)
    for op, ins, slot in (
        ("c_embedding", {"W": w, "Ids": ids}, "Out"),
        ("c_embedding_grad", {"W": w, "Ids": ids, "Out@GRAD": dout}, "W@GRAD"),
    ):
        s = registry.get(op).structured
        meta = s.meta(attrs, ins, None)
        got = []
        for fill in (np.nan, 7.0):
            shape, dtype = meta.outputs[slot]
            outs = {slot: np.full(shape, fill, dtype)}
            buffer = outs[slot]
            assert s.cpu(ins, outs, attrs, meta) is None and outs[slot] is buffer
            got.append(buffer)
        assert got[0].tobytes() == got[1].tobytes()
        local = ids.astype(np.int64) - start
        inside = (local >= 0) & (local < 6)
        if op == "c_embedding":
            want = np.where(inside[..., None], w[np.where(inside, local, 0)], 0)
        else:
            want = np.zeros_like(w)
            np.add.at(want, local[inside], dout[inside])
        assert got[0].tobytes() == want.astype(w_dtype).tobytes()
