"""What a structured op's CPU out-kernel gives a planned step (pe_cli/executor/step_plan.py) for the variant its
Meta chose (``out_kernel.launches(op, table, meta)``, ``table``: name -> (shape, dtype) of every value the step
knows): a list of ``Launch``es, each one compiled loop with its arguments bound, or None (the op then runs as
a Python launch, ``plan.run_step``). The loops are the ones the out-kernel calls when it runs unplanned, so
the two paths give the same bits; the serial loop where the kernel would run its numpy replica (the same
bits), its parallel twin where the kernel would run that on the device's threads. And the helpers the
launches share.

Arguments of a launch (``Launch.args``): ``("var", name, shape)``: the value of ``name`` (viewed as ``shape``
when not None); ``("const", value)``: a number (or the GEMM's C function) compiled into the step;
``("array", array)``: an array the plan keeps (an empty bias); ``("first", name, dtype)``: the one value of
the array ``name`` as a ``dtype`` scalar (a learning rate)."""

import math

import numpy as np

from .runtime.loops import lazy

_reduce_loops = lazy("_reduce_loops")
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class Launch:
    """One compiled loop (None: nothing to compute) and its bound arguments. ``writes``: the names it
    writes (buffers the plan allocates); ``aliases``: {output: input} outputs that are their input's
    array (no launch writes them); ``views``: {output: input} outputs that are their input's memory
    in the output's shape; ``updates``: names it writes over in place (an optimizer's Param and
    state); ``checked``: the loop returns an index >= 0 when its values are bad (a label out of range);
    ``serial``: where ``fn`` is a parallel twin, its serial loop and that loop's arguments (the same bits),
    run instead while the twin is not compiled (a first run on a machine: loops.parallel_ready); ``draw``:
    ``draw(ctx)``, run with the GIL before the segment's loops, each step, fills an array of its arguments
    with the step's random numbers from the call's context (``ctx.rng``, as the op's call by call); ``unviewed``:
    where ``views`` are given, the launches the plan runs instead where an input viewed is no buffer of its own (a
    value read from outside: fed, from the scope, a Python launch's), copying it into the output's buffer; ``held``:
    an object the arguments need alive while the launch is (what owns the C handles they hold: a oneDNN run's)."""

    __slots__ = ("aliases", "args", "checked", "draw", "fn", "held", "serial", "unviewed", "updates", "views", "writes")

    def __init__(
        self,
        fn,
        args,
        writes=(),
        aliases=None,
        updates=(),
        checked=False,
        views=None,
        serial=None,
        draw=None,
        unviewed=None,
        held=None,
    ):
        self.fn, self.args, self.writes = fn, tuple(args), tuple(writes)
        self.aliases, self.updates, self.checked = aliases or {}, tuple(updates), checked
        self.views, self.draw, self.unviewed, self.held = views or {}, draw, unviewed, held
        self.serial = None if serial is None else (serial[0], tuple(serial[1]))


def twin_launch(serial, parallel, use_parallel, args, serial_args=None, **kw):
    """The launch of ``parallel`` on ``args`` where ``use_parallel`` (the serial loop on ``serial_args``,
    default ``args``, the same bits, its stand-in while the twin compiles: ``Launch.serial``), else of
    ``serial`` on ``serial_args``."""
    serial_args = args if serial_args is None else serial_args
    if use_parallel:
        return Launch(parallel, args, serial=(serial, serial_args), **kw)
    return Launch(serial, serial_args, **kw)


def parts_launch(serial, parallel, parts, args, **kw):
    """The launch of what runtime/loops.run_in_parts runs for ``parts`` (its parallel_parts): ``parallel`` on
    ``args`` and ``parts`` where parts > 1 (``serial`` on ``args`` its stand-in while it compiles), else
    ``serial`` on ``args``."""
    return twin_launch(serial, parallel, parts > 1, [*args, ("const", parts)], args, **kw)


def view_launches(op, table, meta):
    """A planned step's launch of a "view" variant (reshape, squeeze, flatten and their gradients; slice, crop,
    transpose where the Meta found the output its input's memory in another shape: ``Meta.views``): no loop,
    each such output the plan's buffer of its input in the output's shape, and any other output (reshape2's
    XShape) an empty buffer; where the input is no buffer of the plan's, a copy of it (``Launch.unviewed``).
    None where the variant is another, or another output holds values."""
    if meta.variant != "view" or not meta.views:
        return None
    views = {}
    for slot, src in meta.views.items():
        dst, x = one(op, slot, "outputs"), one(op, src)
        if dst is None or x is None:
            return None
        views[dst] = x
    others = [n for slot, names in op.outputs.items() if slot not in meta.views for n in names]
    if any(n not in table or math.prod(table[n][0]) for n in others):
        return None
    unviewed = None
    if all(n in table and copied(table[n][1]) for pair in views.items() for n in pair):
        copies = [Launch(_reduce_loops().copy, [flat(table, x), flat(table, d)], writes=[d]) for d, x in views.items()]
        unviewed = [*copies, Launch(None, (), writes=others)]
    return [Launch(None, (), writes=others, views=views, unviewed=unviewed)]


def copied(dtype):
    """True for the dtypes numba's loops copy (bool, integers, float32/64, complex; not float16)."""
    return dtype.kind in "biuc" or dtype in FLOATS


class Shape:
    """An array's shape and dtype, for the kernels' helpers that only look at those."""

    __slots__ = ("dtype", "ndim", "shape", "size")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.ndim, self.size = tuple(shape), dtype, len(shape), math.prod(shape)


def one(op, slot, where="inputs"):
    names = (op.inputs if where == "inputs" else op.outputs).get(slot) or ()
    return names[0] if len(names) == 1 else None


def floats(table, *names):
    """True when every name is known and all are float32, or all float64."""
    if any(n is None or n not in table for n in names):
        return False
    dtypes = {table[n][1] for n in names}
    return len(dtypes) == 1 and dtypes.pop() in FLOATS


def flat(table, name):
    return ("var", name, (math.prod(table[name][0]),))


def by_variant(name, launches, **variants):
    """The out-kernel ``out(ins, outs, attrs, meta)`` running the variant ``meta.variant`` names (``out.variants``:
    variant -> that function, which a step binds once per Meta); its ``launches(op, table, meta)``: a planned
    step's launches of the same (pe_cli/executor/step_plan.py), or None: a Python launch. ``launches`` None: no
    variant has launches (every step of the op a Python launch)."""

    def out(ins, outs, attrs, meta):
        variants[meta.variant](ins, outs, attrs, meta)

    out.__name__ = out.__qualname__ = name
    out.launches, out.variants = launches, variants
    return out
