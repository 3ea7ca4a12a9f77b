"""The creation family's attribute and input rules, shared by the kernels of both devices: the shape a
creation op makes, fill_constant's value, range's and linspace's scalars and length; fill_constant's meta
rule (a structured kernel, shapes/structured.py)."""

import re

import numpy as np

from ..base.errors import PeError
from .manipulation import range_length
from .structured import Meta


def run_shape(ins, attrs, host=np.asarray):
    """The shape an op of ops/creation.py's SHAPE_INPUTS makes: ShapeTensor's values, else one value
    per ShapeTensorList tensor, else the shape attribute. ``host`` brings a device tensor to numpy."""
    if "ShapeTensor" in ins:
        return [int(d) for d in host(ins["ShapeTensor"]).reshape(-1)]
    if "ShapeTensorList" in ins:
        return [int(host(t).reshape(-1)[0]) for t in ins["ShapeTensorList"]]
    return attrs["shape"]


def fill_value(ins, attrs, host=np.asarray):
    """fill_constant's value: ValueTensor's one value, else str_value's (when set), else the value attribute."""
    return host(ins["ValueTensor"]).reshape(-1)[0] if "ValueTensor" in ins else constant(attrs)


def fill_constant_meta(attrs, ins, facts):
    """fill_constant's Out: the shape attribute's (ShapeTensor's or ShapeTensorList's values where given: they
    replace the attribute before the rule runs, the op's ``attr_tensors``) and the dtype attribute's, filled
    ("fill") with its value (ValueTensor's, read by the out-kernel: kernels/cpu/creation.py)."""
    return Meta({"Out": (tuple(attrs["shape"]), np.dtype(attrs["dtype"]))}, "fill")


_INT_TEXT = re.compile(r"\s*[+-]?\d+")


_FLOAT_TEXT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def constant(attrs):
    """The value fill_constant and fill_constant_batch_size_like fill: their str_value, when set, read as
    Fluid 1.8 reads it (a C++ stream: an int64 output takes its leading integer, any other a leading
    decimal number, cast; text that starts with neither, 'inf' and 'nan' included, gives 0), else the
    value attribute."""
    text = attrs.get("str_value") or ""
    if not text:
        return attrs["value"]
    is_int64 = np.dtype(attrs["dtype"]) == np.int64
    match = (_INT_TEXT if is_int64 else _FLOAT_TEXT).match(text)
    if match is None:
        return 0
    return int(match.group(0)) if is_int64 else float(match.group(0))


def range_size(start, end, step):
    """The length of range(start, end, step) as Fluid counts it, checked."""
    n = range_length(start, end, step, np.asarray(start).dtype.kind in "iu")
    if n is None:
        raise PeError(
            f"range: Step={step} does not lead from Start={start} to End={end}; it must be "
            f"nonzero, positive when Start < End and negative when Start > End"
        )
    return n


def range_scalars(ins):
    return tuple(np.asarray(ins[s]).reshape(-1)[0] for s in ("Start", "End", "Step"))


def linspace_scalars(ins):
    """(start, stop, num) of linspace from its [1] tensors (host arrays), num checked as Fluid checks it."""
    start, stop = ins["Start"].reshape(-1)[0], ins["Stop"].reshape(-1)[0]
    num = int(ins["Num"].reshape(-1)[0])
    if num <= 0:
        raise PeError(f"linspace: Num is {num}; it must be larger than 0")
    dtype = ins["Start"].dtype
    step = (dtype.type(stop) - start) / dtype.type(num - 1) if num > 1 else dtype.type(0)
    return start, dtype.type(step), num
