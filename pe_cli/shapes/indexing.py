"""The indexing family's rules, shared by the kernels of both devices: strided_slice's window, the shape a
slice keeps after decrease_axis, arg_max's and arg_min's output dtype; the meta rules of slice, strided_slice and
their gradients (structured kernels, their CPU out-kernels in kernels/cpu/slicing.py)."""

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import PeError
from .manipulation import SLICE_END, strided_window
from .manipulation_run import check_slice_not_empty, slice_window
from .reduction import scalar_shape
from .structured import Meta


def _var_index_ends(attrs):
    """The ends, with Fluid's kernel's reading of ``var[i]`` for a Variable ``i`` holding -1 (its end,
    i + 1, is 0: start -1 and end 0 from tensors on a decreased axis take the last element)."""
    ends, flags, decrease = list(attrs["ends"]), attrs.get("infer_flags") or (), attrs.get("decrease_axis") or ()
    for i, (a, s, e, step) in enumerate(zip(attrs["axes"], attrs["starts"], ends, attrs["strides"])):
        if s == -1 and e == 0 and a in decrease and i < len(flags) and flags[i] == -1:
            ends[i] = SLICE_END if step > 0 else -2
    return ends


def strided_geometry(x_shape, attrs):
    """(first, sizes, steps) per dim, checked not to be empty."""
    first, sizes, steps = strided_window(
        tuple(x_shape), attrs["axes"], attrs["starts"], _var_index_ends(attrs), attrs["strides"]
    )
    if 0 in sizes:
        raise PeError(
            f"strided_slice of Input {list(x_shape)} with axes={list(attrs['axes'])}, "
            f"starts={list(attrs['starts'])}, ends={list(attrs['ends'])}, "
            f"strides={list(attrs['strides'])} is empty"
        )
    return first, sizes, steps


def decreased(sizes, attrs, zero_dim=False):
    """The output shape: the sizes without the decrease_axis dims; none left: 0-D where the op says so
    (``zero_dim``: Paddle 2.x's ``x[0, 1]``), else Fluid's [1]."""
    drop = {d % len(sizes) for d in attrs["decrease_axis"]}
    return tuple(n for i, n in enumerate(sizes) if i not in drop) or scalar_shape(zero_dim)


def arg_dtype(attrs):
    """arg_max / arg_min's Out dtype: the dtype attribute (a VarType code or a name), any code < 0: int64."""
    dtype = attrs.get("dtype", -1)
    return np.dtype(np.int64 if isinstance(dtype, int) and dtype < 0 else convert_dtype(dtype))


def top_k_mismatch(k, x_shape):
    """Why top_k cannot take the ``k`` largest of X's last dim (k larger than it), or None."""
    if k > x_shape[-1]:
        return f"k={k} is larger than the last dim of X {list(x_shape)}"
    return None


# -- slice and strided_slice: meta rules (structured kernels, shapes/structured.py) -----------------------------
#
# Each reads Input's shape and dtype (the gradients': Out@GRAD's too) and the op's attributes (their bounds given
# by tensors, StartsTensor ...: the values replace the attributes before the rule runs, the ops' attr_tensors, so
# such a step decides on every run), never a value; a refusal is the one line the kernels always gave. Out is a
# window of Input: "view" where the window is all of Input (Meta.views: Input in Out's shape, no copy where Input
# is C-contiguous, as numpy's ascontiguousarray of the window gave it), else "window": the window copied into the
# buffer handed (args: the window's index, its shape where the buffer has another: decrease_axis's). A gradient is
# Out@GRAD placed in zeros of Input's shape and dtype ("place": args the window's index and shape), or Out@GRAD
# itself in Input's shape where the window is all of Input and the dtypes agree ("view").


def _window_meta(x, dtype, out, index, sizes, src):
    if tuple(sizes) == tuple(x.shape) and all(s.step in (None, 1) for s in index):
        return Meta({"Out": (out, dtype)}, "view", views={"Out": src})
    return Meta({"Out": (out, dtype)}, "window", args=(index, None if out == tuple(sizes) else tuple(sizes)))


def slice_meta(attrs, ins, facts):
    """slice: Out = Input[starts:ends] along ``axes``; decrease_axis drops sliced dims of size 1 (none left: [1],
    0-D where the op says so, ``facts.zero_dim``); a 0-D Input's window is [1] (numpy's ascontiguousarray's)."""
    x = ins["Input"]
    shape = tuple(x.shape)
    starts, sizes = slice_window(shape, attrs)
    got = tuple(sizes) if shape else (1,)
    check_slice_not_empty(shape, got, attrs)
    out = decreased(got, attrs, facts.zero_dim) if attrs["decrease_axis"] else got
    index = tuple(slice(s, s + n) for s, n in zip(starts, sizes))
    return _window_meta(x, x.dtype, out, index, sizes, "Input")


def strided_slice_meta(attrs, ins, facts):
    """strided_slice: Out = Input[starts:ends:strides] along ``axes`` (an empty window refused), decrease_axis as
    slice's."""
    x = ins["Input"]
    first, sizes, steps = strided_geometry(x.shape, attrs)
    out = decreased(sizes, attrs, facts.zero_dim)
    return _window_meta(x, x.dtype, out, strided_index(first, sizes, steps), sizes, "Input")


def strided_index(first, sizes, steps):
    """strided_slice's window as numpy's index: one slice per dim."""
    return tuple(slice(f, f + n * s if f + n * s >= 0 else None, s) for f, n, s in zip(first, sizes, steps))


def _placed(x, dout, index, sizes):
    shape, dtype = tuple(x.shape), x.dtype
    if tuple(sizes) == shape and all(s.step in (None, 1) for s in index) and dout.dtype == dtype:
        return Meta({"Input@GRAD": (shape, dtype)}, "view", views={"Input@GRAD": "Out@GRAD"})
    return Meta({"Input@GRAD": (shape, dtype)}, "place", args=(index, tuple(sizes)))


def slice_grad_meta(attrs, ins, facts):
    """slice_grad: Input@GRAD of Input's shape and dtype, Out@GRAD in slice's window, zeros elsewhere."""
    x = ins["Input"]
    starts, sizes = slice_window(tuple(x.shape), attrs)
    return _placed(x, ins["Out@GRAD"], tuple(slice(s, s + n) for s, n in zip(starts, sizes)), sizes)


def strided_slice_grad_meta(attrs, ins, facts):
    """strided_slice_grad: Input@GRAD of Input's shape and dtype, Out@GRAD in the window, zeros elsewhere."""
    x = ins["Input"]
    first, sizes, steps = strided_geometry(x.shape, attrs)
    return _placed(x, ins["Out@GRAD"], strided_index(first, sizes, steps), sizes)
