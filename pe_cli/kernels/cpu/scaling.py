"""The CPU out-kernel of ``scale`` (a structured kernel: its meta rule and variants are in
pe_cli/shapes/scaling.py), ``SCALE(ins, outs, attrs, meta)``, computing into the buffer it is handed:

- "loop": _elementwise_loops.scale over the flat values, in parts on the device's threads when large (one
  pass where numpy's ``x * s + b`` makes two; two roundings, as numpy's: the same bits);
- "numpy": np.multiply and np.add into Out (which may be X: the enable_inplace pass's leave);
- "rows": a row-sparse X's values scaled (by ``scale``, the op's kernel), its rows kept, as Fluid's.

s and b are of X's dtype: the attribute ``scale`` or ScaleTensor's one value (Fluid 1.8's), and ``bias``.
``SCALE.launches``: a planned step's launch of the "loop" variant (pe_cli/executor/step_plan.py).
``scale``: the op's kernel over these (kernels/structured.adapter) for the kernels that call it."""

import math

import numpy as np

from . import _replicas
from ..structured import adapter, fresh_output
from .launches import by_variant
from .launches import FLOATS, flat as flat_arg, one, parts_launch
from .runtime.loops import flat, lazy, parallel_parts, run_in_parts
from ...shapes.scaling import clip_grad_meta, clip_meta, scale_meta

_elementwise = lazy("_elementwise_loops")


def _factors(ins, attrs, dtype):
    """(s, b) as ``dtype`` scalars: the scale (ScaleTensor's one value where given) and the bias."""
    s = attrs["scale"]
    if ins.get("ScaleTensor") is not None:  # Fluid 1.8's ScaleTensor: its one value is the scale
        s = float(np.asarray(ins["ScaleTensor"]).reshape(-1)[0])
    return dtype.type(s), dtype.type(attrs["bias"])


def _loop(ins, outs, attrs, meta):
    x, (s, b, after) = ins["X"], meta.args  # (the numbers of X's dtype, as _factors gives them)
    if ins.get("ScaleTensor") is not None:
        s = _factors(ins, attrs, x.dtype)[0]
    args = (flat(x), s, b, after, outs["Out"].reshape(-1))
    run_in_parts(_elementwise(), "scale", x.size, *args, replica=_replicas.scale)


def _numpy(ins, outs, attrs, meta):
    x, out = ins["X"], outs["Out"]
    s, b = _factors(ins, attrs, x.dtype)
    if attrs["bias_after_scale"]:
        np.add(np.multiply(x, s, out=out), b, out=out)
    else:
        np.multiply(np.add(x, b, out=out), s, out=out)


def _rows(ins, outs, attrs, meta):
    x = ins["X"]
    outs["Out"] = x.with_arrays(x.rows, scale(dict(ins, X=x.values), attrs)["Out"])


def _launches(op, table, meta):
    """The scale loop over X's and Out's flat values (its parallel twin where _loop's run_in_parts runs it: the
    same values), s a
    constant or ScaleTensor's first value where that is a float (a cast to X's dtype, as float() then the
    dtype's gives it); None for the other variants, or an int ScaleTensor (a Python launch)."""
    x, out, tensor = one(op, "X"), one(op, "Out", "outputs"), op.inputs.get("ScaleTensor") or ()
    if meta.variant != "loop" or None in (x, out) or len(tensor) > 1:
        return None
    scale_value, bias, after = meta.args
    if tensor:
        if tensor[0] not in table or table[tensor[0]][1] not in FLOATS:
            return None
        s = ("first", tensor[0], meta.outputs["Out"][1])
    else:
        s = ("const", scale_value)
    args = [flat_arg(table, x), s, ("const", bias), ("const", after), flat_arg(table, out)]
    loops, size = _elementwise(), math.prod(table[x][0])
    return [parts_launch(loops.scale, loops.scale_parallel, parallel_parts(size), args, writes=[out])]


SCALE = by_variant("scale_out", _launches, loop=_loop, numpy=_numpy, rows=_rows)
scale = adapter(scale_meta, SCALE, "scale")


def _clip(ins, outs, attrs, meta):
    x = ins["X"]
    out = np.clip(x, x.dtype.type(attrs["min"]), x.dtype.type(attrs["max"]))
    outs["Out"] = fresh_output(out, meta.outputs["Out"], tuple(ins.values()))


def _clip_grad(ins, outs, attrs, meta):
    x, dout = ins["X"], ins["Out@GRAD"]
    inside = (x > x.dtype.type(attrs["min"])) & (x < x.dtype.type(attrs["max"]))
    # dOut where X is inside, else 0 (Paddle's ClipGradFunctor selects: an inf or NaN dOut outside gives 0)
    grad = np.where(inside, dout, dout.dtype.type(0))
    outs["X@GRAD"] = fresh_output(grad, meta.outputs["X@GRAD"], tuple(ins.values()))


CLIP = by_variant("clip_out", None, numpy=_clip)
CLIP_GRAD = by_variant("clip_grad_out", None, numpy=_clip_grad)
clip = adapter(clip_meta, CLIP, "clip")
clip_grad = adapter(clip_grad_meta, CLIP_GRAD, "clip_grad")
