"""The creation family's attribute and input rules, shared by the kernels of both devices: the shape a
creation op makes, fill_constant's value, range's and linspace's scalars and length; fill_constant's meta
rule (a structured kernel, shapes/structured.py)."""

import re

import numpy as np

from ..base.errors import PeError
from .manipulation import range_length
from .structured import Meta, Spec


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


# -- the other creation ops' meta rules (structured kernels: kernels/cpu/creation.py's out-kernels) ---------------


def _one(slot, shape, dtype, variant):
    return Meta({slot: (tuple(shape), np.dtype(dtype))}, variant)


def _is_tensor(x):
    return isinstance(x, (np.ndarray, Spec))


def like_meta(attrs, ins, facts):
    """fill_zeros_like's Out: zeros of X's shape and dtype ("zeros"); a tensor array's X (a list: control flow's)
    gives its empty slots ("array"), a value of no dtype numpy's zeros_like of it ("other"): fresh variants."""
    x = ins["X"]
    if isinstance(x, list) or not hasattr(x, "dtype"):
        return Meta({"Out": []}, "array" if isinstance(x, list) else "other", fresh=True)
    return _one("Out", np.shape(x), x.dtype, "zeros")


def assign_meta(attrs, ins, facts):
    """assign's Out: X's copy, a fresh variant (numpy's copy of X: a new C-contiguous array, no buffer to hand;
    a value that is no dense tensor, a tensor array or row-sparse values, its own copy); without X nothing."""
    x = ins.get("X")
    if x is None:
        return Meta({}, "none")
    if not _is_tensor(x):
        return Meta({"Out": []}, "copy", fresh=True)
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "copy", fresh=True)


def shaped_meta(attrs, ins, facts):
    """The Out of fake_init, assign_value and fill: the shape attribute's, of the dtype attribute's (fake_init's:
    float32), filled with zeros, its values or fill's numbers (the variant: the op's own)."""
    return _one("Out", attrs["shape"], attrs.get("dtype", "float32"), "fill")


def zeros_like2_meta(attrs, ins, facts):
    """fill_zeros_like2's Out: zeros of X's shape and the dtype attribute's."""
    return _one("Out", ins["X"].shape, attrs["dtype"], "zeros")


def fill_any_like_meta(attrs, ins, facts):
    """fill_any_like's Out: X's shape, the dtype attribute's (None: X's), filled with the value."""
    x = ins["X"]
    return _one("Out", x.shape, attrs["dtype"] or x.dtype, "fill")


def batch_size_like_meta(attrs, ins, facts):
    """fill_constant_batch_size_like's Out: the shape attribute's, its output_dim_idx dim Input's input_dim_idx
    dim, filled with the value (``constant``)."""
    shape = list(attrs["shape"])
    shape[attrs["output_dim_idx"]] = ins["Input"].shape[attrs["input_dim_idx"]]
    return _one("Out", shape, attrs["dtype"], "fill")


def eye_meta(attrs, ins, facts):
    """eye's Out: [num_rows, num_columns (-1: num_rows)] of the dtype attribute's."""
    rows, cols = int(attrs["num_rows"]), int(attrs["num_columns"])  # (sizes given as floats: Paddle's ints)
    return _one("Out", (rows, rows if cols < 0 else cols), attrs["dtype"], "eye")


def diag_meta(attrs, ins, facts):
    """diag's Out: the [n, n] matrix of Diagonal's n values, its dtype."""
    d = ins["Diagonal"]
    return _one("Out", (d.shape[0], d.shape[0]), d.dtype, "diag")


def diag_embed_meta(attrs, ins, facts):
    """diag_embed's Out: Input's dims with two more of size n + |offset| at dim1 and dim2 (the rest in order);
    ``args``: (dim1, dim2) as dims of Out, where the out-kernel's view puts them last."""
    x, offset = ins["Input"], attrs["offset"]
    rank = len(x.shape) + 1
    dims = (attrs["dim1"] % rank, attrs["dim2"] % rank)
    side = x.shape[-1] + abs(offset)
    rest = iter(x.shape[:-1])
    shape = tuple(side if d in dims else next(rest) for d in range(rank))
    return Meta({"Out": (shape, x.dtype)}, "embed", args=dims)


def triangle(shape, attrs):
    """The bool mask [rows, cols] of the triangle tril_triu keeps of a value of ``shape``."""
    rows, cols = shape[-2], shape[-1]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    return offset <= attrs["diagonal"] if attrs["lower"] else offset >= attrs["diagonal"]


def tril_triu_meta(attrs, ins, facts):
    """tril_triu's Out (tril_triu_grad's X@GRAD): its input's shape and dtype; ``args``: the mask of the kept
    triangle (``triangle``)."""
    slot, out = ("X", "Out") if "X" in ins else ("Out@GRAD", "X@GRAD")
    x = ins[slot]
    return Meta({out: (tuple(x.shape), x.dtype)}, "mask", args=(triangle(x.shape, attrs),))


def meshgrid_meta(attrs, ins, facts):
    """meshgrid's Out: one [n1, ..., nk] per X (ni: X[i]'s size), of its dtype."""
    sizes = tuple(int(np.prod(x.shape)) for x in ins["X"])
    return Meta({"Out": [(sizes, x.dtype) for x in ins["X"]]}, "grid", args=(sizes,))


def meshgrid_grad_meta(attrs, ins, facts):
    """meshgrid_grad's X@GRAD: each X's shape and dtype, its Out@GRAD summed over the other dims ("sum"; "cast":
    a gradient of another dtype than its X, summed in its own and cast)."""
    xs, ds = ins["X"], ins["Out@GRAD"]
    same = all(x.dtype == d.dtype for x, d in zip(xs, ds))
    return Meta({"X@GRAD": [(tuple(x.shape), x.dtype) for x in xs]}, "sum" if same else "cast")


def run_length_meta(attrs, ins, facts):
    """range's and linspace's Out: 1-D, its length the inputs' values (known when the out-kernel runs: a fresh
    variant, the array numpy makes), of Start's dtype (linspace's ``dtype`` where Paddle 2.x's op has it: its
    formula, "paddle2"; else "fluid", Fluid's CPU kernel's; range's: "arange")."""
    if "End" in ins:
        return Meta({"Out": ((-1,), np.dtype(ins["Start"].dtype))}, "arange", fresh=True)
    dtype = attrs.get("dtype")
    return Meta({"Out": ((-1,), np.dtype(dtype or ins["Start"].dtype))}, "paddle2" if dtype else "fluid", fresh=True)
