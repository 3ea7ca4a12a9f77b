"""Fluid's ring collective ops (``c_allreduce_sum``, ``c_broadcast``, ``c_sync_comm_stream``, ...), which
Fleet's collective mode and some programs write into a program. pe runs them in a program of one
process, where each is what a ring of one trainer makes it: the reductions, the broadcast, the gather
and the scatter give X as it is, the stream syncs pass X through, and the ring set-up ops
(``c_gen_nccl_id``, ``c_comm_init``, ``c_comm_init_all``) do nothing. Run in one of several trainers
(``nranks`` > 1, or PADDLE_TRAINERS_NUM > 1), their kernels refuse: pe all-reduces the gradients of
several devices or trainers itself (CompiledProgram, fleet), never through these ops.

Their kernels are with the multi-device graph's collectives (kernels/<device>/collectives.py)."""

from ..base.dtypes import VarType
from ..kernels.cpu import collectives as cpu_collectives
from ..shapes import collectives as metas
from .define import Attr, Structured, int_list, register, same_as

_RING = {"ring_id": 0, "use_calc_stream": False}
# (out-kernels that read the environment's ring of trainers and refuse one of several: kept out of compiled segments)
_SAME = Structured(meta=metas.ring_x_meta, cpu=cpu_collectives.ring_identity_out, python=True)
_SETUP = Structured(meta=metas.ring_setup_meta, cpu=cpu_collectives.ring_setup_out, python=True)


def _one_ring(ctx):
    nranks = ctx.attrs.get("nranks", 1)
    if nranks != 1:
        ctx.fail(
            f"nranks={nranks}: pe runs collective ops in a program of one process (nranks=1) only; "
            f"let CompiledProgram or fleet all-reduce across devices and trainers"
        )
    same_as()(ctx)


def _infer_raw(ctx):
    ctx.set_output("Out", (), None, var_type=VarType.RAW)


for _reduce in ("sum", "max", "min", "prod"):
    register(
        f"c_allreduce_{_reduce}",
        kernel_module="collectives",
        kernel="ring_identity",
        inputs=["X"],
        outputs=["Out"],
        attrs=dict(_RING),
        infer=same_as(),
        structured=_SAME,
        doc=f"Out = the {_reduce} of X over the ring's trainers: X itself in a program of one process.",
    )
register(
    "c_broadcast",
    kernel_module="collectives",
    kernel="ring_identity",
    inputs=["X"],
    outputs=["Out"],
    attrs=dict(_RING, root=0),
    infer=same_as(),
    structured=_SAME,
    doc="Out = X of the ring's trainer `root`: X itself in a program of one process.",
)
register(
    "c_allgather",
    kernel_module="collectives",
    kernel="ring_identity",
    inputs=["X"],
    outputs=["Out"],
    attrs=dict(_RING, nranks=Attr(1, lambda n: n >= 1, ">= 1")),
    infer=_one_ring,
    structured=Structured(meta=metas.RANKED["c_allgather"], cpu=cpu_collectives.ring_identity_out, python=True),
    doc="Out = the X of every trainer of the ring, stacked along the rows: X itself for nranks=1.",
)
register(
    "c_reducescatter",
    kernel_module="collectives",
    kernel="ring_identity",
    inputs=["X"],
    outputs=["Out"],
    attrs=dict(_RING, nranks=Attr(1, lambda n: n >= 1, ">= 1")),
    infer=_one_ring,
    structured=Structured(meta=metas.RANKED["c_reducescatter"], cpu=cpu_collectives.ring_identity_out, python=True),
    doc="Out = this trainer's row block of the sum of X over the ring: X itself for nranks=1.",
)
register(
    "c_sync_calc_stream",
    kernel_module="collectives",
    kernel="ring_identity",
    inputs=["X"],
    outputs=["Out"],
    infer=same_as(),
    structured=_SAME,
    doc="Out = X, once the computations before it are done (pe runs ops in order).",
)
register(
    "c_sync_comm_stream",
    kernel_module="collectives",
    kernel="ring_identity",
    inputs=["X"],
    outputs=["Out"],
    attrs={"ring_id": 0},
    infer=same_as(),
    structured=_SAME,
    doc="Out = X, once the ring's communications before it are done (pe runs ops in order).",
)
register(
    "c_gen_nccl_id",
    kernel_module="collectives",
    kernel="ring_setup",
    inputs=[],
    outputs=["Out"],
    attrs={
        "endpoint": "",
        "other_endpoints": Attr(list, lambda v: all(isinstance(e, str) for e in v), "a list of endpoints"),
        "rank": 0,
    },
    infer=_infer_raw,
    structured=_SETUP,
    doc="Makes the ring's id (Out, a raw variable): nothing to make for one process.",
)
register(
    "c_comm_init",
    kernel_module="collectives",
    kernel="ring_setup",
    inputs=["X"],
    outputs=[],
    attrs={"nranks": 1, "rank": 0, "ring_id": 0},
    structured=_SETUP,
    doc="Joins the ring of nranks trainers: nothing to join for one process.",
)
register(
    "c_comm_init_all",
    kernel_module="collectives",
    kernel="ring_setup",
    inputs=[],
    outputs=[],
    attrs={"devices": Attr(list, int_list, "a list of device ids"), "ring_id": 0},
    structured=_SETUP,
    doc="Makes a ring of this process's devices: nothing to make where each runs alone.",
)

# Fluid 1.8's first collective ops (distributed_ops/allreduce_op, broadcast_op; NCCL on GPUs in Fluid):
# reduce_type 0 sum, 1 prod, 2 max, 3 min. In a program of one process each gives X.
register(
    "allreduce",
    kernel_module="collectives",
    kernel="ring_identity",
    inputs=["X"],
    outputs=["Out"],
    attrs={
        "reduce_type": Attr(0, lambda v: v in (0, 1, 2, 3), "0 (sum), 1 (prod), 2 (max) or 3 (min)"),
        "sync_mode": False,
    },
    infer=same_as(),
    structured=_SAME,
    doc="Out = X reduced (reduce_type) over the trainers: X itself in a program of one process.",
)
register(
    "broadcast",
    kernel_module="collectives",
    kernel="ring_identity",
    inputs=["X"],
    outputs=["Out"],
    attrs={"sync_mode": False, "root": 0},
    infer=same_as(),
    structured=_SAME,
    doc="Out = X of the trainer `root`: X itself in a program of one process.",
)
