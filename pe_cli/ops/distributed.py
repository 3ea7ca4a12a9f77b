"""The ops of parameter-server mode (DistributeTranspiler, pe_cli/transpiler/): a trainer cuts its
gradients into blocks (``split_byref``), sends them to the servers that hold them (``send``), and
receives the updated parameter blocks (``recv``); ``send_barrier`` and ``fetch_barrier`` end the two
exchanges of a synchronous step. A server's program is one ``listen_and_serv`` op whose blocks the
Executor runs as the trainers' gradients arrive (pe_cli/executor/pserver.py).

Endpoints name MPI ranks: the servers' endpoints are ranks 0..P-1 in order, trainer i is rank P + i.
Messages carry host arrays; ``tags`` number the blocks the same way in every process.

Every op here but split_byref (split's) has a structured kernel (shapes/distributed.py, kernels/cpu/distributed.py);
those that talk to servers, and lookup_sparse_table, whose table grows, are ``Structured(python=True)``.
"""

from ..base.dtypes import VarType
from ..base.dims import known_numel
from ..kernels.cpu import distributed as cpu
from ..shapes import distributed as metas
from .define import Attr, Structured, dtype_or_none, fmt_shape, int_list, register
from .manipulation_joining import SPLIT_STRUCTURED, infer_split

_EPS = Attr(list, lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v), "a list of endpoints")
_HOST = "127.0.0.1:6164"  # Fluid's default endpoint
_WHO = {"endpoints": Attr([_HOST], _EPS.check, _EPS.expect), "trainer_id": 0, "trainers": 1}
# Fluid's gRPC parameter-server attributes, which pe's MPI exchange has no use for: a program of Fluid's
# own DistributeTranspiler (no ``tags``) builds, and its send and recv say at run time that pe runs its own
_GRPC = {
    "sections": Attr([], long=True),
    "send_varnames": Attr([]),
    "num": 0,
    "merge_add": False,
    "use_send_handler": True,
    "with_barrier": True,
    "varnames": Attr([]),
    "recv_varnames": Attr([]),
    "do_not_run": 0,
    "half_async": False,
}


def _infer_send(ctx):
    n = ctx.num_inputs("X")
    for what in ("epmap", "tags") if ctx.attrs["tags"] else ():
        if len(ctx.attrs[what]) != n:
            ctx.fail(f"{what} has {len(ctx.attrs[what])} entries for {n} variables")


def _infer_recv(ctx):
    n = ctx.num_outputs("Out")
    shapes = ctx.attrs["shapes"]
    for what in ("epmap", "tags", "shapes") if ctx.attrs["tags"] else ():
        if len(ctx.attrs[what]) != n:
            ctx.fail(f"{what} has {len(ctx.attrs[what])} entries for {n} variables")
    for i, shape in enumerate(shapes):
        ctx.set_output("Out", shape, ctx.attrs["dtype"], i=i)


register(
    "send",
    kernel_module="distributed",
    structured=Structured(meta=metas.link_meta, cpu=cpu.send_out, python=True),
    inputs=["X*"],
    outputs=["Out*"],
    attrs=dict(
        _WHO,
        epmap=Attr([_HOST], _EPS.check, _EPS.expect),
        tags=Attr(list, int_list, "a list of ints"),
        sync_mode=True,
        **{k: _GRPC[k] for k in ("sections", "send_varnames", "num", "merge_add", "use_send_handler")},
    ),
    infer=_infer_send,
    traits=("selected_rows",),
    doc="Sends each X to the server of its epmap entry, as block `tags[i]` (without waiting); a "
    "row-sparse X goes as its rows and values.",
)
register(
    "send_barrier",
    kernel_module="distributed",
    structured=Structured(meta=metas.link_meta, cpu=cpu.send_barrier_out, python=True),
    inputs=["X*"],
    outputs=["Out*"],
    attrs=dict(_WHO, half_async=False),
    doc="Waits until this step's sends are delivered.",
)
register(
    "recv",
    kernel_module="distributed",
    structured=Structured(meta=metas.recv_meta, cpu=cpu.recv_out, python=True),
    inputs=["X*"],
    outputs=["Out*"],
    attrs=dict(
        _WHO,
        epmap=_EPS,
        tags=Attr(list, int_list, "a list of ints"),
        shapes=Attr(list, lambda v: all(int_list(s) for s in v), "a list of shapes"),
        dtype="float32",
        **{k: _GRPC[k] for k in ("with_barrier", "varnames", "recv_varnames", "do_not_run")},
    ),
    infer=_infer_recv,
    doc="Out[i] = block `tags[i]` as the server of epmap[i] holds it after this step's update.",
)
register(
    "fetch_barrier",
    kernel_module="distributed",
    structured=Structured(meta=metas.link_meta, cpu=cpu.fetch_barrier_out, python=True),
    inputs=["X*?"],
    outputs=["Out*"],
    attrs=dict(_WHO),
    doc="Ends the step's receives (the blocks are in place once recv returns).",
)
register(
    "split_byref",
    kernel_module="manipulation",
    kernel="split",
    structured=SPLIT_STRUCTURED,  # (split's: its meta rule and out-kernel)
    inputs=["X"],
    outputs=["Out*"],
    attrs={"axis": 0, "num": 0, "sections": Attr(list, int_list, "a list of ints")},
    infer=infer_split,
    doc="Out = X cut into row blocks of `sections` rows (a trainer's gradient blocks).",
)
register(
    "listen_and_serv",
    kernel_module="distributed",
    structured=Structured(meta=metas.link_meta, cpu=cpu.listen_and_serv_out, python=True),
    inputs=["X*"],
    outputs=[],
    attrs={
        "endpoint": _HOST,
        "pserver_endpoints": _EPS,
        "Fanin": 1,
        "sync_mode": True,
        "optimize_blocks": list,
        "lr_decay_block_id": -1,
        "grad_to_block_id": list,
        "grad_blocks": list,
        "param_blocks": list,
        # Fluid's gRPC server's
        "pserver_id": -1,
        "distributed_mode": 0,
        "dc_asgd": False,
        "prefetch_var_name_to_block_id": list,
        "sparse_grad_to_param": list,
        "checkpint_block_id": -1,
        "rpc_get_thread_num": 1,
        "rpc_send_thread_num": 1,
        "rpc_prefetch_thread_num": 1,
    },
    doc="A parameter server's loop: receives the trainers' gradient blocks, runs the optimize blocks "
    "and sends the parameter blocks back, until every trainer has finished.",
)


# -- the id and table ops of Fluid's parameter-server mode that compute in the trainer ----------------


def _infer_split_ids(ctx):
    if ctx.input_var("Ids").type != VarType.SELECTED_ROWS and len(ctx.shape("Ids")) != 2:
        ctx.fail(f"Ids {fmt_shape(ctx.shape('Ids'))} must be 2-D [N, 1]")
    sparse = ctx.input_var("Ids").type == VarType.SELECTED_ROWS
    for i in range(ctx.num_outputs("Out")):
        ctx.set_output(
            "Out",
            [-1] + list(ctx.shape("Ids")[1:]),
            ctx.dtype("Ids"),
            i=i,
            var_type=VarType.SELECTED_ROWS if sparse else None,
        )


def _infer_merge_ids(ctx):
    if ctx.num_inputs("Rows") != ctx.num_inputs("X") or ctx.num_inputs("Ids") != ctx.num_outputs("Out"):
        ctx.fail(
            f"Rows ({ctx.num_inputs('Rows')}) and X ({ctx.num_inputs('X')}), Ids ({ctx.num_inputs('Ids')}) and "
            f"Out ({ctx.num_outputs('Out')}) must pair up"
        )
    for i in range(ctx.num_outputs("Out")):
        ctx.set_output("Out", [ctx.shape("Ids", i)[0], ctx.shape("X")[-1]], ctx.dtype("X"), i=i)


def _infer_ref(ctx):
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"))


def _infer_lookup_sparse(ctx):
    ctx.set_output("Out", [known_numel(ctx.shape("Ids"))] + list(ctx.shape("W")[1:]), ctx.dtype("W"))


register(
    "split_ids",
    kernel_module="distributed",
    structured=Structured(meta=metas.split_ids_meta, cpu=cpu.split_ids_out),
    inputs=["Ids*"],
    outputs=["Out*"],
    infer=_infer_split_ids,
    traits=("selected_rows", "output_counts"),
    lod="drop",
    doc="Out[k] = the ids of every Ids tensor that id % len(Out) sends to server k, each once, ascending; a "
    "row-sparse Ids (SelectedRows) gives each Out[k] its rows (in order) and their values.",
)
register(
    "merge_ids",
    kernel_module="distributed",
    structured=Structured(meta=metas.merge_ids_meta, cpu=cpu.merge_ids_out),
    inputs=["Ids*", "Rows*", "X*"],
    outputs=["Out*"],
    infer=_infer_merge_ids,
    lod="keep",
    doc="Out[i] row r = the row of X[k] whose id (Rows[k]) is Ids[i][r]: the servers' answers put back in "
    "the order of each Ids.",
)
register(
    "ref_by_trainer_id",
    kernel_module="distributed",
    structured=Structured(meta=metas.ref_by_trainer_id_meta, cpu=cpu.ref_by_trainer_id_out),
    inputs=["X*", "TrainerId"],
    outputs=["Out"],
    infer=_infer_ref,
    lod="drop",
    doc="Out = X[TrainerId] (a copy).",
)
register(
    "lookup_sparse_table",
    kernel_module="distributed",
    structured=Structured(meta=metas.lookup_sparse_table_meta, cpu=cpu.lookup_sparse_table_out, python=True),
    inputs=["W", "Ids"],
    outputs=["Out"],
    attrs={"padding_idx": Attr(-1, long=True), "auto_grown_table": True, "is_test": False},
    infer=_infer_lookup_sparse,
    traits=("selected_rows",),
    doc="Out row i = the row of the table W (SelectedRows: its rows are the ids it holds) for Ids[i]. An id "
    "W lacks takes W's next free value row, W's rows growing by it (the table is state, as in "
    "Fluid), unless is_test, where it reads zeros.",
)


# -- Fluid's gRPC parameter-server services that pe's MPI link does not offer: registered with Fluid's slots
# and attributes (programs holding them build, save and load); run, they say what they need --------------


def _infer_remote_rows(ctx):
    width = ctx.shape("W")[1:]
    for i in range(ctx.num_outputs("Outputs")):
        ctx.set_output("Outputs", list(ctx.shape("Ids", i)[:1]) + list(width), ctx.attrs["dtype"], i=i)


def _infer_prefetch(ctx):
    for i in range(ctx.num_outputs("Out")):
        ctx.set_output("Out", [-1, -1], "float32", i=i)


_GRPC = {"trainer_id": 0}
register(
    "distributed_lookup_table",
    kernel_module="distributed",
    structured=Structured(meta=metas.distributed_lookup_table_meta, cpu=cpu.distributed_lookup_table_out, python=True),
    inputs=["Ids*", "W"],
    outputs=["Outputs*"],
    attrs=dict(
        _GRPC,
        table_names=Attr(lambda: [""]),
        height_sections=Attr(list, int_list, "a list of ints", long=True),
        endpoints=Attr(lambda: ["127.0.0.1:6164"]),
        lookup_table_version="lookup_table",
        padding_idx=Attr(-1, long=True),
        dtype=Attr("float32", dtype_or_none, "a dtype name"),
    ),
    infer=_infer_remote_rows,
    doc="Outputs[i] = the rows of the table W for Ids[i], fetched from the parameter servers at endpoints "
    "that hold its height_sections (a gRPC prefetch in Fluid).",
)
register(
    "prefetch",
    kernel_module="distributed",
    structured=Structured(meta=metas.prefetch_meta, cpu=cpu.prefetch_out, python=True),
    inputs=["X*"],
    outputs=["Out*"],
    attrs=dict(_GRPC, epmap=Attr(lambda: ["127.0.0.1:6164"])),
    infer=_infer_prefetch,
    doc="Out[i] = the table rows for the ids X[i], asked of the server epmap[i] (gRPC in Fluid).",
)
register(
    "checkpoint_notify",
    kernel_module="distributed",
    structured=Structured(meta=metas.link_meta, cpu=cpu.checkpoint_notify_out, python=True),
    inputs=[],
    outputs=[],
    attrs=dict(_GRPC, epmap=Attr(lambda: ["127.0.0.1:6164"]), dir="", lookup_table=""),
    doc="Asks each server of epmap to save its part of lookup_table under dir; with no server, nothing to do.",
)
register(
    "recv_save",
    kernel_module="distributed",
    structured=Structured(meta=metas.link_meta, cpu=cpu.recv_save_out, python=True),
    inputs=[],
    outputs=[],
    attrs=dict(
        _GRPC,
        dtype=Attr("float32", dtype_or_none, "a dtype name"),
        overwrite=True,
        file_path="",
        shape=Attr(list, int_list, "a list of ints", long=True),
        slice_varnames=Attr(list),
        remote_varnames=Attr(list),
        slice_shapes=Attr(list),
        endpoints=Attr(list),
    ),
    doc="Receives the slices remote_varnames of a variable from the servers at endpoints and saves the whole "
    "variable (shape) to file_path.",
)
register(
    "fl_listen_and_serv",
    kernel_module="distributed",
    structured=Structured(meta=metas.link_meta, cpu=cpu.fl_listen_and_serv_out, python=True),
    inputs=["X*"],
    outputs=[],
    attrs={"endpoint": "127.0.0.1:6164", "sync_mode": True, "Fanin": 1, "optimize_blocks": list},
    doc="A federated-learning parameter server's loop (gRPC in Fluid): serves the trainers' variables and "
    "runs optimize_blocks.",
)
