"""Running a structured kernel (pe_cli/shapes/structured.py): its meta rule decides the outputs' shapes and
dtypes and the loop variant, the outputs are allocated here, and the device's out-kernel computes into them.

Two callers, one computation:

- ``step_kernel``: an executor's step of the op (executor/plan.py binds one per step, ``OpDef.step_kernel``).
  It keeps the Meta of each shape signature of its inputs (``signature``: their shapes and dtypes), so
  the rule runs once per signature; each call allocates the outputs the Meta says (or hands the out-kernel
  the input it may write over, ``Meta.inplace``, where the executor allows it: ``ctx.inplace``, the
  enable_inplace pass's leave, or ``ctx.update_in_place``, an update's over its parameter and state) and calls
  the out-kernel.
- ``adapter``: the op's ``kernel(ins, attrs[, ctx])`` (``OpDef.kernel``): the same, the rule run on every
  call, for every caller of a kernel by that name (a Fluid one-op run, an op test, CUDA's host fallbacks,
  another kernel, layouts)."""

import numpy as np

from .context import NO_CONTEXT


def allocate(meta, ins, overwrite=False):
    """The buffers the out-kernel fills: slot -> an empty array of the Meta's shape and dtype, or the
    input the Meta lets that output be when ``overwrite`` (the executor's leave) and that input is a
    writable C-contiguous array of the output's shape and dtype that no other input's array overlaps (an
    update's Grad, another state: none for a ``fresh`` variant, whose out-kernel puts the arrays its numpy
    form made); the Meta's scratch buffers too, by name. An output the Meta makes an alias of an input is
    that input; one it makes a view of an input is that input in the output's shape (``viewed``)."""
    outs = {slot: ins[src] for slot, src in meta.aliases.items()} if meta.aliases else {}
    if meta.views:
        viewed(meta, ins, outs)
    for slot, spec in () if meta.fresh else meta.outputs.items():
        if slot in outs:
            continue
        if type(spec) is list:  # (a list output: a buffer per variable)
            outs[slot] = [np.empty(shape, dtype) for shape, dtype in spec]
            continue
        shape, dtype = spec
        src = meta.inplace.get(slot) if overwrite else None
        x = None if src is None else ins.get(src)
        if (
            isinstance(x, np.ndarray)
            and x.shape == tuple(shape)
            and x.dtype == dtype
            and x.flags.c_contiguous
            and x.flags.writeable
            and not _overlapped(x, src, ins, meta.outputs)
        ):
            outs[slot] = x
        else:
            outs[slot] = np.empty(shape, dtype)
    for name, (shape, dtype) in meta.scratch.items():
        outs[name] = np.empty(shape, dtype)
    return outs


def viewed(meta, ins, outs):
    """Puts in ``outs`` each output the Meta makes a view of an input (``Meta.views``): the input's memory in the
    output's shape where it is C-contiguous, else a C-contiguous copy of it in that shape (numpy's
    ascontiguousarray, then reshape). The executor never writes in place over an array a view shares
    (executor/plan.py), so a view is safe to hand on."""
    for slot, src in meta.views.items():
        x = ins[src]  # (a C-contiguous array is what ascontiguousarray gives, without its call)
        x = x if type(x) is np.ndarray and x.flags.c_contiguous else np.ascontiguousarray(x)
        outs[slot] = x.reshape(meta.outputs[slot][0])


def _overlapped(x, src, ins, outputs):
    """Whether an input other than ``src`` holds memory of ``x`` (its array, or a view sharing its memory;
    ``base``: arrays that numpy allocated each share none unless they are one, no call made). An output's
    value before the op, which its kernel reads (``reads_outputs``: adam's ParamOut, Param's own array where
    they are one variable), is no other input."""
    for slot, v in ins.items():
        if slot != src and slot not in outputs and type(v) is np.ndarray:
            if v is x or ((v.base is not None or x.base is not None) and np.may_share_memory(v, x)):
                return True
    return False


def fresh_output(result, spec, inputs):
    """The output of a ``fresh`` variant from the array its numpy form made: ``result`` itself where it is a
    new C-contiguous array of ``spec``'s (shape, dtype), else a copy broadcast and cast to it (as numpy's
    ``copyto`` would write it into a buffer of that shape and dtype: exp of ints stays ints)."""
    shape, dtype = spec
    result = np.asarray(result)
    if (
        result.dtype == dtype
        and result.shape == tuple(shape)
        and result.base is None
        and result.flags.c_contiguous
        and all(result is not a for a in inputs)
    ):
        return result
    out = np.empty(shape, dtype)
    np.copyto(out, result, casting="unsafe")
    return out


def _outputs(meta, outs):
    return {slot: outs[slot] for slot in meta.outputs} if meta.scratch else outs


def signature(ins):
    """The key of the inputs' shapes and dtypes (a list slot's per value), or None where a value is no
    array (a Meta of it is not kept)."""
    if len(ins) == 1:  # (a unary op's, the most frequent: a quarter of a microsecond less)
        for v in ins.values():
            if type(v) is np.ndarray:
                return ((v.shape, v.dtype),)
            return (_listed(v),) if type(v) is list else None  # (a list slot's: concat's, sum's X)
    if len(ins) == 2:  # (a binary op's: X and Y)
        a, b = ins.values()
        if type(a) is np.ndarray and type(b) is np.ndarray:
            return ((a.shape, a.dtype), (b.shape, b.dtype))
    key = []
    for v in ins.values():
        if type(v) is np.ndarray:
            key.append((v.shape, v.dtype))
        elif v is None:
            key.append(None)
        else:
            listed = _listed(v) if type(v) is list else None
            if listed is None:
                return None
            key.append(listed)
    return tuple(key)


def _listed(values):
    """The shapes and dtypes of a list slot's values, or None where one is no array (a loop: a microsecond less
    than a generator's over three values)."""
    key = []
    for a in values:
        if type(a) is not np.ndarray:
            return None
        key.append(a.shape)
        key.append(a.dtype)
    return tuple(key)


KEPT = 32  # signatures a step keeps the Meta of (more: it forgets them all and starts again)


def lod_key(lods):
    """The key of a call's input LoDs (slot -> offsets per level, a list of them per variable of a duplicable
    slot): the offsets themselves, as tuples. An op that reads LoD (``needs_lod``) keeps its Meta per signature
    and LoD, its meta rule reading the LoD as a fact of the call."""
    return tuple((slot, _frozen(lod)) for slot, lod in lods.items())


def lod_signature(ins, ctx):
    """The key of a call of an op that reads LoD: its inputs' signature and their LoD (None: no Meta kept)."""
    key = signature(ins)
    return None if key is None else (key, lod_key(ctx.lod))


def _frozen(value):
    """(a duplicable slot's LoDs: one per variable, None for a variable with none, the first's too; a level's
    offsets, ints all, told by its first: a scan of every offset cost 20 us an op at 512 sequences)"""
    if type(value) is list or type(value) is tuple:
        offsets = not value or isinstance(value[0], (int, np.integer))
        return tuple(value) if offsets else tuple(_frozen(v) for v in value)
    if type(value) is np.ndarray:
        return tuple(value.tolist())
    return value


def step_kernel(meta, out_kernel, name, check=None, lod=False):
    """A structured op's kernel in one executor step, ``kernel(ins, attrs, ctx)``: ``meta(attrs, ins, ctx)``
    once per signature of its inputs (``kernel.metas``: signature -> (Meta, the buffers to allocate as (slot
    or scratch name, shape, dtype), the out-kernel's function of the Meta's variant where it names them:
    ``out_kernel.variants``, the list outputs' (slot, a (shape, dtype) per variable)); the rule is
    ``kernel.meta``), then ``out_kernel(ins, outs, attrs, meta)`` into outputs allocated here
    (``out_kernel(ins, outs, attrs, meta, ctx)`` where the out-kernel says ``takes_context``: the call's own
    facts, a drawing op's Generator, which no Meta keeps; its variants take it too). ``check(ins, attrs, ctx)``: the
    op's run-time checks (kernels/run_checks.py), made with its meta; ``lod``: the key has the LoD (lod_signature)."""
    metas, told = {}, getattr(out_kernel, "takes_context", False)

    def decide(key, ins, attrs, ctx):
        if check is not None:
            check(ins, attrs, ctx)
        decided = kernel.meta(attrs, ins, ctx)
        listed = ()  # (list outputs: slot -> a (shape, dtype) per variable)
        if decided.fresh:  # (nothing to allocate: the out-kernel puts the arrays numpy made)
            empties = ()
        else:
            left = {*decided.aliases, *decided.views}  # (an input, as it is or in another shape)
            outputs = [(slot, spec) for slot, spec in decided.outputs.items() if slot not in left]
            listed = tuple((slot, spec) for slot, spec in outputs if type(spec) is list)
            empties = tuple((slot, *spec) for slot, spec in outputs if type(spec) is not list)
        empties += tuple((name, shape, dtype) for name, (shape, dtype) in decided.scratch.items())
        run = getattr(out_kernel, "variants", {}).get(decided.variant, out_kernel)  # (one call less)
        if key is not None:
            if len(metas) >= KEPT:  # (shapes that drift from batch to batch: the recent ones)
                metas.clear()
            metas[key] = (decided, empties, run, listed)
        return decided, empties, run, listed

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        key = lod_signature(ins, ctx) if lod else signature(ins)
        found = metas.get(key)
        decided, empties, run, listed = decide(key, ins, attrs, ctx) if found is None else found
        overwrite = ctx.inplace or ctx.update_in_place  # (the enable_inplace pass's leave, or an update's)
        if overwrite:
            outs = allocate(decided, ins, True)  # (outputs that may be an input's buffer)
        elif len(empties) == 1 and not listed:
            slot, shape, dtype = empties[0]
            outs = {slot: np.empty(shape, dtype)}
        else:
            outs = {slot: np.empty(shape, dtype) for slot, shape, dtype in empties}
            for slot, specs in listed:  # (a buffer per variable of a list output)
                outs[slot] = [np.empty(shape, dtype) for shape, dtype in specs]
        if decided.aliases:  # (outputs that are an input as it is)
            for slot, src in decided.aliases.items():
                outs[slot] = ins[src]
        if decided.views and not overwrite:  # (an input in another shape; allocate's did)
            viewed(decided, ins, outs)
        if told:
            run(ins, outs, attrs, decided, ctx)
        else:
            run(ins, outs, attrs, decided)
        return _outputs(decided, outs) if decided.scratch else outs

    kernel.__name__ = kernel.__qualname__ = name
    kernel.meta, kernel.metas, kernel.takes_context = meta, metas, True
    kernel.structured = (meta, out_kernel)
    return kernel


def adapter(meta, out_kernel, name):
    """The op's ``kernel(ins, attrs, ctx=NO_CONTEXT, *args)`` over its meta rule and out-kernel; ``args`` (and
    keywords), for an out-kernel that takes the context, after it: a device's own arithmetic for a driver both
    devices share (the control-flow ops' sums and zeros, CUDA's ``with_args``)."""
    told = getattr(out_kernel, "takes_context", False)

    def kernel(ins, attrs, ctx=NO_CONTEXT, *args, **kwargs):
        decided = meta(attrs, ins, ctx)
        outs = allocate(decided, ins, ctx.inplace or ctx.update_in_place)
        if told:
            out_kernel(ins, outs, attrs, decided, ctx, *args, **kwargs)
        else:
            out_kernel(ins, outs, attrs, decided)
        return _outputs(decided, outs)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.structured = (meta, out_kernel)
    return kernel


def _an_input(value, ins):
    """Whether ``value`` is one of the inputs' arrays (a loop: a generator's any costs a third of a microsecond)."""
    for v in ins.values():
        if v is value:
            return True
    return False


def fresh_kernel(compute, name):
    """The out-kernel of a ``fresh`` variant over a numpy form with no ``out=`` (numpy's LAPACK): ``compute(ins,
    attrs)`` (slot -> the arrays numpy made; a list slot's, a list of them), each output the Meta lists handed over
    (``fresh_output``: a copy only where one is no new C-contiguous array of its shape and dtype). An output whose
    length the values give (-1 in the Meta's shape: lstsq's Residuals) is the array of numpy's shape."""

    def out(ins, outs, attrs, meta):
        for slot, value in compute(ins, attrs).items():
            spec = meta.outputs[slot]
            if type(spec) is list:
                inputs = tuple(v for v in ins.values() if type(v) is np.ndarray)
                outs[slot] = [fresh_output(v, s, inputs) for v, s in zip(value, spec)]
                continue
            shape, dtype = spec
            if (  # (the usual: numpy's new array as it is, a microsecond less than fresh_output's checks)
                type(value) is np.ndarray
                and value.base is None
                and value.shape == shape
                and value.dtype == dtype
                and value.flags.c_contiguous
                and not _an_input(value, ins)
            ):
                outs[slot] = value
                continue
            inputs = tuple(v for v in ins.values() if type(v) is np.ndarray)
            if -1 in shape:
                outs[slot] = fresh_output(value, (np.shape(value), dtype), inputs)
            else:
                outs[slot] = fresh_output(value, spec, inputs)

    out.__name__ = out.__qualname__ = name
    out.__module__ = compute.__module__  # (a reader finds it where its numpy form is: the device's kernels)
    out.launches = None
    return out


def fresh_outputs(results, ins, outs, meta):
    """Puts in ``outs`` each array a ``fresh`` variant's numpy form made (``results``: slot -> array, None for
    an output it does not write) that the Meta lists, handed over as ``fresh_output`` does (a copy only where
    one is no new C-contiguous array of its shape and dtype); an output of -1 dims (a length the values give)
    has the array's shape."""
    inputs = tuple(v for v in ins.values() if type(v) is np.ndarray)
    for slot, value in results.items():
        spec = meta.outputs.get(slot)
        if value is None or spec is None:
            continue
        shape, dtype = spec
        outs[slot] = fresh_output(value, (np.shape(value), dtype) if -1 in shape else spec, inputs)
