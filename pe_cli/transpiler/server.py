"""A parameter server's programs. Its main program holds one ``listen_and_serv`` op (block 0), the
learning-rate schedule's block (when the program has a schedule), and one optimize block per
parameter block it holds: in synchronous mode ``sum`` of the trainers' gradient blocks, ``scale`` by
1/trainers, then the parameter's own optimize ops on the blocks (regularization, clipping, the update).
Its startup program runs the original initializers and takes its blocks from their values."""

from ..framework import Program
from ..framework.operator import OpRole


def _renamer(plan, placed, origin_block):
    """origin name -> this block's name (shape), for the variables of ``placed``'s optimize ops."""
    group, vb = placed.group, placed.block
    full = tuple(origin_block.var(group.param).shape)
    names = {}
    for name in sorted(group.names | {n for op in group.ops for n in op.input_arg_names + op.output_arg_names}):
        var = origin_block.var(name)
        if name in plan.shared:
            names[name] = (name, var.shape, None)
        elif name == group.grad:
            names[name] = (placed.grad, vb.shape, vb)
        elif var.shape is not None and tuple(var.shape) == full:
            names[name] = (vb.name(name), vb.shape, vb)
        else:
            names[name] = (vb.name(name), var.shape, None)
    return names


def _var_like(block, origin_var, name, shape, persistable=None):
    return block.create_var(
        name=name,
        shape=shape,
        dtype=origin_var.dtype,
        type=origin_var.type,
        persistable=origin_var.persistable if persistable is None else persistable,
    )


def _clone_op(block, op, rename):
    def mapped(slots):
        return {slot: [rename.get(n, n) for n in names] for slot, names in slots.items()}

    return block.append_op(op.type, mapped(op.inputs), mapped(op.outputs), dict(op.attrs), role=op.role)


def _lr_block(program, origin, lr_ops, origin_of):
    """The block of ``program`` that runs the learning-rate schedule's ops ``lr_ops`` (their variables
    made in the global block, recorded in ``origin_of``): its index, or -1 when there are none."""
    g0 = program.global_block()
    lr_block = -1
    if lr_ops:
        names = {n for op in lr_ops for n in op.input_arg_names + op.output_arg_names}
        for n in sorted(names):
            _var_like(g0, origin.var(n), n, origin.var(n).shape)
            origin_of[n] = (n, None)
        lr_block = program._create_block(0).idx
        for op in lr_ops:
            _clone_op(program.current_block(), op, {})
        program._rollback()
    return lr_block


def pserver_program(plan, endpoint, lr_ops):
    mine = plan.on(endpoint)
    origin = plan.origin.global_block()
    program = Program()
    program.random_seed = plan.origin.random_seed
    g0 = program.global_block()
    origin_of = {}  # this program's persistable name -> (origin name, VarBlock or None)
    lr_block = _lr_block(program, origin, lr_ops, origin_of)
    optimize_blocks, grad_blocks, param_blocks = [], [], []
    for placed in mine:
        rename = _renamer(plan, placed, origin)
        for name, (new, shape, vb) in rename.items():
            if not g0.has_var(new):
                _var_like(g0, origin.var(name), new, shape)
                origin_of[new] = (name, vb)
        received = [placed.grad]
        block = program._create_block(0)
        if plan.sync and plan.trainers > 1:
            received = [f"{placed.grad}.trainer_{t}" for t in range(plan.trainers)]
            for name in received:
                _var_like(g0, origin.var(placed.group.grad), name, placed.block.shape, persistable=False)
            with program._role_guard(OpRole.Optimize):
                block.append_op("sum", {"X": received}, {"Out": placed.grad})
                block.append_op("scale", {"X": placed.grad}, {"Out": placed.grad}, {"scale": 1.0 / plan.trainers})
        for op in placed.group.ops:
            _clone_op(block, op, {k: v[0] for k, v in rename.items()})
        program._rollback()
        optimize_blocks.append(block)
        grad_blocks.append([placed.tag, received, block.idx])
        param_blocks.append([placed.tag, placed.param])
    op = g0.append_op(
        "listen_and_serv",
        {"X": []},
        {},
        {
            "endpoint": endpoint,
            "pserver_endpoints": list(plan.endpoints),
            "Fanin": plan.trainers,
            "sync_mode": plan.sync,
            "optimize_blocks": optimize_blocks,
            "lr_decay_block_id": lr_block,
            "grad_to_block_id": [f"{p.grad}:{b.idx}" for p, b in zip(mine, optimize_blocks)],
            "grad_blocks": grad_blocks,
            "param_blocks": param_blocks,
        },
    )
    program._listen_and_serv = op
    program._pserver_origin = origin_of
    # Fluid's record of the sliced parameters: [the whole variable, the block's first row, the block]
    program._slice_vars_and_attrs = [
        [origin.var(p.group.param), p.block.row0, g0.var(p.param)] for p in mine if p.block.count > 1
    ]
    return program


def pserver_startup(origin_startup, program):
    """The server's startup: the whole original startup program (the same ops in the same places,
    so each variable gets the values one process would give it), then each block the server holds
    taken from its variable: rows by ``slice``, a per-block copy by ``assign``. Only the server's
    own variables are persistable, so the whole ones are dropped after the run. The values thus do
    not depend on how many servers there are or how the parameters are cut."""
    startup = origin_startup.clone()
    block = startup.global_block()
    mine = program._pserver_origin
    src = program.global_block()
    for name, var in block.vars.items():
        var.persistable = name in mine and mine[name][0] == name and src.var(name).persistable
    for new, (name, vb) in mine.items():
        if new == name or not block.has_var(name) or not src.var(new).persistable:
            continue
        var = src.var(new)
        block.create_var(name=new, shape=var.shape, dtype=var.dtype, persistable=True)
        if vb is None or vb.count == 1:
            block.append_op("assign", {"X": name}, {"Out": new})
        else:
            block.append_op(
                "slice", {"Input": name}, {"Out": new}, {"axes": [0], "starts": [vb.row0], "ends": [vb.row0 + vb.rows]}
            )
    return startup
