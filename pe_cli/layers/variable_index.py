"""``var[item]`` on a Variable, as Fluid 1.8's ``Variable.__getitem__``: an int picks one index and drops
that dim (all dims picked: shape [1]); a slice ``a:b`` slices (``slice`` op), with a step
``strided_slice``; ``::-1`` reverses the dim; ``:`` leaves it. A tuple indexes dims in order. An index
held in a Variable is refused in one line (pe needs it when the program is built)."""
from ..base.errors import ArgumentTypeError
from .helper import _single

_END = 10000000      # Fluid's "to the end"


def _parts(item):
    axes, starts, ends, steps, decrease, reverse = [], [], [], [], [], []
    for dim, index in enumerate(item if isinstance(item, tuple) else (item,)):
        if isinstance(index, slice):
            start, stop, step = index.start, index.stop, index.step
            if start is None and stop is None and step is None:
                continue
            if start is None and stop is None and step == -1:
                reverse.append(dim)
                continue
            for what, v in (("start", start), ("stop", stop), ("step", step)):
                if v is not None and not isinstance(v, int):
                    raise ArgumentTypeError(f"Variable[...]: a slice's {what} must be an int, got {v!r}")
            axes.append(dim)
            starts.append(0 if start is None else start)
            ends.append(_END if stop is None else stop)
            steps.append(1 if step is None else step)
        elif isinstance(index, int) and not isinstance(index, bool):
            axes.append(dim)
            starts.append(index)
            ends.append(index + 1 if index != -1 else _END)
            steps.append(1)
            decrease.append(dim)
        else:
            raise ArgumentTypeError(f"Variable[...]: index {index!r} of dim {dim} is not supported by pe: use "
                                    f"ints and slices of ints (an index held in a Variable: fluid.layers.slice "
                                    f"or gather)")
    return axes, starts, ends, steps, decrease, reverse


def getitem(var, item):
    """``var[item]`` (see the module's docstring)."""
    axes, starts, ends, steps, decrease, reverse = _parts(item)
    out = var
    if axes:
        attrs = {"axes": axes, "starts": starts, "ends": ends, "decrease_axis": decrease}
        if any(s != 1 for s in steps):
            attrs.update(strides=steps, infer_flags=[1] * len(axes))
            out = _single("strided_slice", out, {"Input": [out]}, attrs)
        else:
            out = _single("slice", out, {"Input": [out]}, attrs)
    if reverse:
        kept = [d for d in range(len(var.shape)) if d not in decrease]
        out = _single("reverse", out, {"X": [out]}, {"axis": [kept.index(d) for d in reverse]})
    return out
