"""``Executor.run(use_prune=True)``, and a fetch list naming optimize ops (what ``minimize``
returns): only the ops the fetches and the chosen optimize ops need run, the feeds taken as given
(Fluid 1.8's Executor._prune_program). Without optimize ops named, every optimize op is kept, so a
training step still trains."""

from ..base.errors import PeError
from ..framework import Operator, Variable
from ..framework.prune import prune_with_input


def split_fetch_list(fetch_list):
    """(what to fetch, the optimize ops to keep) of a fetch list whose items are names, Variables,
    optimize Operators, lists of those, or ``minimize``'s (optimize ops, params_grads) tuple."""
    fetches, ops = [], []

    def take(item):
        if isinstance(item, Operator):
            if not item._is_optimize_op():
                raise TypeError("The operator in fetch_list is not an optimize_op")
            ops.append(item)
        elif isinstance(item, (Variable, str)):
            fetches.append(item)
        else:
            raise TypeError(
                f"The item in fetch_list should be str, variable or optimize_op, but received {type(item)}."
            )

    for index, item in enumerate(fetch_list or ()):
        if isinstance(item, (list, tuple)) and all(isinstance(i, (Variable, str)) for i in item):
            fetches.extend(item)  # [x, (a, b)]: a and b fetched, as Fluid flattens them
        elif isinstance(item, list):
            for i in item:
                take(i)
        elif isinstance(item, tuple):
            if not isinstance(item[0], (list, tuple)):
                raise TypeError(
                    f"Requires fetch_list[{index}][0] shall be one of (list, tuple) when "
                    f"type(fetch_list[{index}]) is `tuple`, but received fetch_list[{index}][0]'s type "
                    f"is `{type(item[0]).__name__}`."
                )
            for i in item[0]:
                take(i)
        else:
            take(item)
    return fetches, ops


def feed_names(feed):
    """The fed names of a feed dict or of a list of per-device dicts."""
    if isinstance(feed, dict):
        return list(feed)
    return [name for each in feed or () for name in each]


def cache_key(program, feed, fetch_list, optimize_ops):
    inner = getattr(program, "_unpruned", None) or getattr(program, "_program", None) or program
    return (
        id(program),
        getattr(inner, "_version", None),
        tuple(sorted(feed_names(feed))),
        tuple(f if isinstance(f, str) else f.name for f in fetch_list),
        tuple(id(op) for op in optimize_ops),
    )


def prune_program(program, feed, fetch_list, optimize_ops):
    """The Program (pruned copy) or CompiledProgram (its program replaced; one that runs data-parallel:
    before its first run only) that runs what ``fetch_list`` and ``optimize_ops`` (default: every
    optimize op) need."""
    compiled = hasattr(program, "_program")
    # a CompiledProgram pruned before is pruned again from the program it was made of
    origin = (getattr(program, "_unpruned", None) or program._program) if compiled else program
    if origin is None:
        return program  # a CompiledProgram of a core.Graph: nothing to prune (Fluid warns)
    if not optimize_ops:
        optimize_ops = [op for block in origin.blocks for op in block.ops if op._is_optimize_op()]
    pruned = prune_with_input(origin, feed_names(feed), list(fetch_list) + list(optimize_ops), keep_vars=True)
    if not compiled:
        return pruned
    if program._engine is not None:
        raise PeError(
            "Executor.run: this data-parallel CompiledProgram has run already, with other fetches or "
            "feeds: pe prunes a CompiledProgram once, before its first run; make one per pruned run"
        )
    program._unpruned, program._program = origin, pruned  # it runs the pruned program from now on
    return program
