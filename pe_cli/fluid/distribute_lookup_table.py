"""``paddle.fluid.distribute_lookup_table``: the distributed embedding table of a program (a
``lookup_table`` op with ``is_distributed``), its ids and its outputs."""

LOOKUP_TABLE_TYPE = "lookup_table"


def find_distributed_lookup_table(program):
    """The name of the table (W) of the program's distributed lookup_table ops, or None; a second
    distributed table is a RuntimeError, as in Fluid (one is supported)."""
    table = None
    for op in program.global_block().ops:
        if op.type != LOOKUP_TABLE_TYPE:
            continue
        w = op.input("W")[0]
        if op.attr("is_distributed") is True:
            if table is not None and w != table:
                raise RuntimeError("all distributed lookup_table_ops should have only one table")
            table = w
        elif table is not None:
            assert w != table
    return table


def _lookup_vars(program, table_name, side):
    local = program.current_block().vars
    found = []
    for op in program.global_block().ops:
        if op.type == LOOKUP_TABLE_TYPE and op.input("W")[0] == table_name:
            names = op.input("Ids") if side == "in" else op.output("Out")
            found.extend(local[n] for n in names)
    return found


def find_distributed_lookup_table_inputs(program, table_name):
    """The Ids variables of every lookup_table op reading ``table_name``."""
    return _lookup_vars(program, table_name, "in")


def find_distributed_lookup_table_outputs(program, table_name):
    """The Out variables of every lookup_table op reading ``table_name``."""
    return _lookup_vars(program, table_name, "out")
