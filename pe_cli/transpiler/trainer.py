"""A trainer's programs in parameter-server mode: the optimizer's and the schedule's ops leave (the
servers run them); each gradient is cut into its blocks and sent as soon as backward has computed
it; at the end of the step the parameter blocks come back from their servers and are joined. The
startup program receives the servers' initial parameters the same way, so every trainer starts from
the values the servers hold.

A row-sparse gradient (embedding(is_sparse=True)) is cut by ``split_selected_rows`` and sent as it
is, the rows it holds and their values: its servers receive what the step touched, never the
[vocabulary, dim] table (Fluid's sparse send). The parameters come back whole, as Fluid's recv does."""

from ..base.dtypes import VarType
from ..framework.operator import OpRole


def _is_moved(op):
    return op.role & ~OpRole.Loss in (OpRole.Optimize, OpRole.LRSched)


def _block_vars(block, origin_var, grad_var, placed):
    for p in placed:
        if p.block.count > 1:
            block.create_var(name=p.param, shape=p.block.shape, dtype=origin_var.dtype)
            block.create_var(name=p.grad, shape=p.block.shape, dtype=origin_var.dtype, type=grad_var.type)


def rewrite_trainer_program(program, plan):
    """Changes ``program`` in place (as Fluid's transpiler does)."""
    block = program.global_block()
    block.ops = [op for op in block.ops if not _is_moved(op)]
    used = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    for name in [n for n, v in block.vars.items() if v.persistable and n not in used]:
        del block.vars[name]  # optimizer state: the servers hold it (and checkpoints must not)
    program._pserver_trainer = True  # its steps exchange with the servers: one step at a time (data/hogwild.py)
    program._bump()
    for group in plan.groups:
        placed = plan.blocks_of(group)
        grad = block.var(group.grad)
        _block_vars(block, block.var(group.param), grad, placed)
        at = max(i for i, op in enumerate(block.ops) if group.grad in op.output_arg_names) + 1
        if len(placed) > 1:
            sections = [p.block.rows for p in placed]
            split, attrs = (
                ("split_selected_rows", {"height_sections": sections})
                if grad.type == VarType.SELECTED_ROWS
                else ("split_byref", {"sections": sections})
            )
            block._insert_op(
                at, split, {"X": group.grad}, {"Out": [p.grad for p in placed]}, attrs, role=OpRole.Backward
            )
            at += 1
        block._insert_op(
            at,
            "send",
            {"X": [p.grad for p in placed]},
            {},
            dict(plan.who(), epmap=[p.endpoint for p in placed], tags=[p.tag for p in placed], sync_mode=plan.sync),
            role=OpRole.Backward,
        )
    with program._role_guard(OpRole.Optimize):
        if plan.sync:
            block.append_op("send_barrier", attrs=plan.who())
        _receive_parameters(block, plan)


def _receive_parameters(block, plan):
    """recv of every parameter's blocks, then (synchronous mode) fetch_barrier, then the joins."""
    for group in plan.groups:
        placed = plan.blocks_of(group)
        block.append_op(
            "recv",
            {},
            {"Out": [p.param for p in placed]},
            dict(
                plan.who(),
                epmap=[p.endpoint for p in placed],
                tags=[p.tag for p in placed],
                shapes=[list(p.block.shape) for p in placed],
                dtype=block.var(group.param).dtype,
            ),
        )
    if plan.sync:
        block.append_op("fetch_barrier", attrs=plan.who())
    for group in plan.groups:
        placed = plan.blocks_of(group)
        if len(placed) > 1:
            block.append_op("concat", {"X": [p.param for p in placed]}, {"Out": group.param}, {"axis": 0})


def rewrite_trainer_startup(startup, plan):
    """Appends to ``startup`` (in place) the receipt of the servers' initial parameters."""
    block = startup.global_block()
    for group in plan.groups:
        origin = plan.origin.global_block().var(group.param)
        if not block.has_var(group.param):
            block.create_var(name=group.param, shape=origin.shape, dtype=origin.dtype, persistable=True)
        for p in plan.blocks_of(group):
            if p.block.count > 1:
                block.create_var(name=p.param, shape=p.block.shape, dtype=origin.dtype)
    _receive_parameters(block, plan)
