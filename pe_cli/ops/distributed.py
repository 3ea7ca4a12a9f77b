"""The ops of parameter-server mode (DistributeTranspiler, pe_cli/transpiler/): a trainer cuts its
gradients into blocks (``split_byref``), sends them to the servers that hold them (``send``), and
receives the updated parameter blocks (``recv``); ``send_barrier`` and ``fetch_barrier`` end the two
exchanges of a synchronous step. A server's program is one ``listen_and_serv`` op whose blocks the
Executor runs as the trainers' gradients arrive (pe_cli/executor/pserver.py).

Endpoints name MPI ranks: the servers' endpoints are ranks 0..P-1 in order, trainer i is rank P + i.
Messages carry host arrays; ``tags`` number the blocks the same way in every process.
"""
from .define import Attr, int_list, register
from .manipulation import _infer_split

_EPS = Attr(list, lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v), "a list of endpoints")
_WHO = {"endpoints": _EPS, "trainer_id": 0, "trainers": 1}


def _infer_send(ctx):
    n = ctx.num_inputs("X")
    for what in ("epmap", "tags"):
        if len(ctx.attrs[what]) != n:
            ctx.fail(f"{what} has {len(ctx.attrs[what])} entries for {n} variables")


def _infer_recv(ctx):
    n = ctx.num_outputs("Out")
    shapes = ctx.attrs["shapes"]
    for what in ("epmap", "tags", "shapes"):
        if len(ctx.attrs[what]) != n:
            ctx.fail(f"{what} has {len(ctx.attrs[what])} entries for {n} variables")
    for i, shape in enumerate(shapes):
        ctx.set_output("Out", shape, ctx.attrs["dtype"], i=i)


register("send", kernel_module="distributed", inputs=["X*"], outputs=[],
         attrs=dict(_WHO, epmap=_EPS, tags=Attr(list, int_list, "a list of ints"), sync_mode=True),
         infer=_infer_send, traits=("selected_rows",),
         doc="Sends each X to the server of its epmap entry, as block `tags[i]` (without waiting); a "
             "row-sparse X goes as its rows and values.")
register("send_barrier", kernel_module="distributed", inputs=[], outputs=[], attrs=dict(_WHO),
         doc="Waits until this step's sends are delivered.")
register("recv", kernel_module="distributed", inputs=[], outputs=["Out*"],
         attrs=dict(_WHO, epmap=_EPS, tags=Attr(list, int_list, "a list of ints"),
                    shapes=Attr(list, lambda v: all(int_list(s) for s in v), "a list of shapes"),
                    dtype="float32"),
         infer=_infer_recv,
         doc="Out[i] = block `tags[i]` as the server of epmap[i] holds it after this step's update.")
register("fetch_barrier", kernel_module="distributed", inputs=[], outputs=[], attrs=dict(_WHO),
         doc="Ends the step's receives (the blocks are in place once recv returns).")
register("split_byref", kernel_module="manipulation", kernel="split", inputs=["X"], outputs=["Out*"],
         attrs={"axis": 0, "num": 0, "sections": Attr(list, int_list, "a list of ints")},
         infer=_infer_split, doc="Out = X cut into row blocks of `sections` rows (a trainer's gradient blocks).")
register("listen_and_serv", kernel_module="distributed", inputs=["X*"], outputs=[],
         attrs={"endpoint": "", "pserver_endpoints": _EPS, "Fanin": 1, "sync_mode": True,
                "optimize_blocks": list, "lr_decay_block_id": -1, "grad_to_block_id": list,
                "grad_blocks": list, "param_blocks": list},
         doc="A parameter server's loop: receives the trainers' gradient blocks, runs the optimize blocks "
             "and sends the parameter blocks back, until every trainer has finished.")
