"""Paddle 2.x's collective ops (model parallel: c_identity, c_concat, c_split, c_embedding, mp_allreduce_sum;
the reductions c_reduce_*, reduce, all_reduce; the gathers and scatters all_gather,
c_scatter, reduce_scatter, alltoall, all_to_all; the waits c_wait_comm, c_wait_compute, barrier), as
collective.py's Fluid ring ops: pe runs them in a program of one process, a ring of one trainer, where each
gives X (c_embedding: its rows from start_index), and refuses to run them in one of several trainers (nranks > 1, PADDLE_TRAINERS_NUM > 1): pe all-reduces across
devices and trainers itself (CompiledProgram, fleet)."""

from ..kernels.cpu import ring_collectives as cpu_ring
from ..shapes import collectives as metas
from .define import Attr, Structured, fmt_shape, grads_like, register, same_as
from .pointwise_math import QUANT

_ONE = Attr(1, lambda n: n in (0, 1), "0 or 1 (a ring of one trainer)")


def _same(ctx):
    x = next(s for s in ("X", "x") if ctx.op.inputs.get(s))
    out = "Out" if x == "X" else "out"
    same_as(x, out)(ctx)


def _pass_grad(g):
    x, out = ("X", "Out") if g.input("X") else ("x", "out")
    g.op("assign", {"X": g.out_grad(out)}, {"Out": g.in_grad(x)})


def _ring(name, attrs, doc, slot="X", grad=False):
    out = "Out" if slot == "X" else "out"
    register(
        name,
        kernel_module="ring_collectives",
        kernel="ring_of_one",
        inputs=[slot],
        outputs=[out],
        attrs={**attrs, **QUANT},
        infer=_same,
        grad=_pass_grad if grad else None,
        structured=Structured(
            meta=metas.RANKED.get(name, metas.ring_x_meta if slot == "X" else metas.ring_small_x_meta),
            cpu=cpu_ring.ring_out,
            python=True,  # (it reads the environment's ring of trainers; a ring of several: pe's refusal)
        ),
        doc=doc,
    )


_R = {"ring_id": 0}
_C = {"ring_id": 0, "use_calc_stream": False}
for _op in ("sum", "max", "min", "prod"):
    _ring(
        f"c_reduce_{_op}", {**_C, "root_id": 0}, f"Out = the {_op} of X over the ring at root_id: X on a ring of one."
    )
_ring(
    "c_identity",
    {**_C, "use_calc_stream": True, "use_model_parallel": True},
    "Out = X (model parallel's forward identity; its gradient all-reduced: X@GRAD on a ring of one).",
    grad=True,
)
_ring("mp_allreduce_sum", _C, "Out = the sum of X over the model-parallel ring: X on a ring of one.", grad=True)
_ring(
    "c_concat",
    {**_C, "use_calc_stream": True, "use_model_parallel": True, "rank": 0, "nranks": _ONE},
    "Out = the X of every rank concatenated along the last dim: X on a ring of one.",
    grad=True,
)
_ring(
    "c_split",
    {**_C, "use_model_parallel": True, "rank": 0, "nranks": _ONE},
    "Out = this rank's block of X's last dim: X on a ring of one.",
    grad=True,
)
_ring("c_scatter", {**_C, "root": 0, "nranks": _ONE}, "Out = this rank's rows of root's X: X on a ring of one.")
_ring("alltoall", _C, "Out = X's blocks exchanged between the ranks: X on a ring of one.")
_ring("barrier", _R, "Out = X, once every rank arrives: at once on a ring of one.")
_ring(
    "all_reduce",
    {**_R, "reduce_type": Attr(0, lambda v: v in range(5), "0 to 4")},
    "out = x reduced over the ring: x on a ring of one.",
    slot="x",
)
_ring(
    "reduce",
    {**_R, "root_id": 0, "reduce_type": Attr(0, lambda v: v in range(5), "0 to 4")},
    "out = x reduced at root_id: x on a ring of one.",
    slot="x",
)
_ring("all_gather", {**_R, "nranks": _ONE}, "out = every rank's x stacked: x on a ring of one.", slot="x")
_ring("all_to_all", _R, "out = x's blocks exchanged: x on a ring of one.", slot="x")
_ring("reduce_scatter", {**_R, "nranks": _ONE}, "out = this rank's block of the sum: x on a ring of one.", slot="x")


def _infer_waits(ctx):
    for i in range(ctx.num_outputs("Out")):
        var = ctx.input_var("X", i)
        ctx.set_output("Out", var.shape, var.dtype, i=i)


for _name in ("c_wait_comm", "c_wait_compute"):
    register(
        _name,
        kernel_module="ring_collectives",
        kernel="ring_wait",
        inputs=["X*"],
        outputs=["Out*"],
        attrs={"ring_id": 0, **QUANT},
        infer=_infer_waits,
        structured=Structured(meta=metas.ring_wait_meta, cpu=cpu_ring.ring_wait_out, python=True),
        doc="Out = X, once the ring's communication (computation) streams are done: pe runs ops in order.",
    )


def _infer_c_embedding(ctx):
    w, ids = ctx.shape("W"), ctx.shape("Ids")
    if len(w) != 2:
        ctx.fail(f"W {fmt_shape(w)} must be [rows, width]")
    ctx.set_output("Out", list(ids) + [w[1]], ctx.dtype("W"))


def _grad_c_embedding(g):
    g.op(
        "c_embedding_grad",
        {"W": g.input("W"), "Ids": g.input("Ids"), "Out@GRAD": g.out_grad("Out")},
        {"W@GRAD": g.in_grad("W")},
        g.attrs,
    )


_EMB = {"start_index": Attr(0), "vocab_size": Attr(-1), **QUANT}
register(
    "c_embedding",
    kernel_module="ring_collectives",
    inputs=["W", "Ids"],
    outputs=["Out"],
    attrs=_EMB,
    infer=_infer_c_embedding,
    grad=_grad_c_embedding,
    grad_reads=("W", "Ids"),
    lod="drop",
    structured=Structured(meta=metas.c_embedding_meta, cpu=cpu_ring.c_embedding_out),
    doc="Out = the rows W[id - start_index] of this rank's vocabulary slice, zeros for ids outside it "
    "(model-parallel embedding; W holds rows start_index ...).",
)
register(
    "c_embedding_grad",
    kernel_module="ring_collectives",
    inputs=["W", "Ids", "Out@GRAD"],
    outputs=["W@GRAD"],
    attrs=_EMB,
    infer=grads_like({"W@GRAD": "W"}),
    no_need_buffer=("W",),
    lod="drop",
    structured=Structured(meta=metas.c_embedding_grad_meta, cpu=cpu_ring.c_embedding_grad_out),
)
