"""The indexing family's rules, shared by the kernels of both devices: strided_slice's window, the shape a
slice keeps after decrease_axis, arg_max's and arg_min's output dtype."""

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import PeError
from .manipulation import SLICE_END, strided_window
from .reduction import scalar_shape


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
