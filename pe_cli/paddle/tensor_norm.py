"""``paddle.norm`` / ``paddle.linalg.norm``: the ops Paddle 2.6 builds for each ``p`` and ``axis`` (frobenius_norm,
p_norm, or abs and a reduction), so values, gradients (0 at a zero norm, where sqrt(sum(x^2)) gives NaN) and the
saved program are Paddle's."""

import math
import numbers

from .. import layers as L
from ..base.errors import ArgumentValueError
from ..framework.program_release import paddle_face
from ..layers.helper import single as _single


@paddle_face
def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """The ops Paddle 2.6 builds: 'fro' over all of x or two axes, frobenius_norm; a number p over all of x
    (asvector) or one axis ('fro' there: 2), p_norm; inf / -inf over two axes, reduce_max / reduce_min of |x|;
    another number over two axes, (sum |x|^p)^(1/p) of pow and reduce_sum."""
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    number = isinstance(p, numbers.Number) and not isinstance(p, bool)
    if axis is None or isinstance(axis, int):
        if isinstance(p, str) and p != "fro":
            raise ArgumentValueError(f"paddle.norm: p={p!r}: only valid string values are 'fro'")
        if not number and not isinstance(p, str):  # Paddle 2.6.2's ValueError
            raise ArgumentValueError(f"paddle.norm: p={p!r}: only valid p type is string or float, found {type(p)}")
        if axis is None and p == "fro":
            attrs = {"dim": [], "keep_dim": keepdim, "reduce_all": True}
            return _single("frobenius_norm", x, {"X": [x]}, attrs, name=name)
        porder, asvector = 2.0 if p == "fro" else float(p), axis is None
        attrs = {"axis": -1 if asvector else axis, "porder": porder, "keepdim": keepdim, "asvector": asvector}
        return _single("p_norm", x, {"X": [x]}, dict(attrs, epsilon=1e-12), name=name)
    if not (isinstance(axis, list) and len(axis) == 2):
        raise ArgumentValueError(f"paddle.norm: axis={axis!r}: except axis type int or list (length of list <=2)")
    if p == "fro":
        return _single(
            "frobenius_norm", x, {"X": [x]}, {"dim": axis, "keep_dim": keepdim, "reduce_all": False}, name=name
        )
    if p in (math.inf, -math.inf):
        reduce = L.reduce_max if p == math.inf else L.reduce_min
        return reduce(L.abs(x), dim=axis, keep_dim=keepdim, name=name)
    if p == 0 or not number:
        raise ArgumentValueError(f"paddle.norm: p={p!r} over the two axes {axis}: a nonzero number, 'fro', inf or -inf")
    total = L.reduce_sum(L.pow(L.abs(x), factor=float(p)), dim=axis, keep_dim=keepdim)
    return L.pow(total, factor=1.0 / float(p), name=name)
