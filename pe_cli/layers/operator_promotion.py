"""Paddle 2.6's rules for a Variable's operators (``a + 1.5``, ``a / b``), where they differ from Fluid
1.8's (math_op_patch.py): a program built after ``paddle.enable_static()`` follows these
(``Program._follows_paddle2``, framework/program_release.py; docs/COMPAT.md, "Paddle 2.6 unit tests", fifth pass).

- A Python float with an integer (or bool) variable: the variable is cast to float32 first, for every
  operator; an int with an integer variable keeps its dtype, except for ``/``.
- ``/`` of two integer operands is a true division in float32 (Fluid 1.8's stays an integer division).
- Two float variables of different dtypes under ``+``, ``-``, ``*`` give the wider float (float16 with
  float32 gives float32, ...), with Paddle's one warning; any other mix casts the right operand to the
  left one's dtype, as Fluid 1.8's.
- A scalar that becomes a tensor is 0-D (Fluid 1.8's is [1]).
- Every variable an operator makes is named ``tmp_N`` (Paddle 2.6's ``unique_name.generate("tmp")``),
  and the operator takes no layer's name (pe's Fluid 1.8 path names them as its layers do)."""

import warnings

from ..framework import unique_name
from .helper import LayerHelper

INT_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64")
_FLOAT_RANK = {"float16": 0, "bfloat16": 0, "float32": 1, "float64": 2}
_PROMOTING = ("elementwise_add", "elementwise_sub", "elementwise_mul")
# op -> (scale, bias) of the scale op a scalar operand becomes, as Paddle's _scalar_*_ (reverse sub: -x + v)
_SCALE = {
    ("elementwise_add", False): lambda v: (1.0, v),
    ("elementwise_add", True): lambda v: (1.0, v),
    ("elementwise_sub", False): lambda v: (1.0, -v),
    ("elementwise_sub", True): lambda v: (-1.0, v),
    ("elementwise_mul", False): lambda v: (v, 0.0),
    ("elementwise_mul", True): lambda v: (v, 0.0),
    ("elementwise_div", False): lambda v: (1.0 / v, 0.0),
}
_COMPARE = ("equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal")


def promoted_float(ldtype, rdtype):
    """The dtype Paddle 2.6 gives two different float dtypes under + - * (None: no promotion)."""
    if ldtype == rdtype or ldtype not in _FLOAT_RANK or rdtype not in _FLOAT_RANK:
        return None
    if {ldtype, rdtype} == {"float16", "bfloat16"}:
        return "float32"
    return ldtype if _FLOAT_RANK[ldtype] > _FLOAT_RANK[rdtype] else rdtype


class TmpHelper(LayerHelper):
    """A LayerHelper for one operator of a Paddle 2.x program: its variables are ``tmp_N``, and it
    takes no name of ``op_type``'s sequence (Paddle 2.6's math_op_patch appends the ops directly)."""

    def __init__(self, op_type):  # (no super().__init__: it would take the next name of op_type)
        self.layer_type = self.name = op_type
        self.kwargs = {}

    def create_variable_for_type_inference(self, dtype=None, stop_gradient=False):
        return self.block.create_var(
            name=unique_name.generate("tmp"), dtype=dtype or "float32", stop_gradient=stop_gradient
        )


def binary(var, other, op_type, reverse=False):
    """``var <op> other`` (``other <op> var`` with ``reverse``) as Paddle 2.6 builds it."""
    helper = TmpHelper(op_type)
    if isinstance(other, (bool, int, float)):  # numpy's float64 is a float, its ints are not
        is_float = isinstance(other, float)
        if str(var.dtype) in INT_DTYPES and (is_float or op_type == "elementwise_div"):
            var = _cast(helper, var, "float32")
        other = float(other)
        scale = _SCALE.get((op_type, reverse))
        if scale is not None:
            return scale_op(helper, var, *scale(other))
    if not hasattr(other, "name"):
        other = constant_like(helper, var, float(other))
    elif other.dtype != var.dtype:
        common = promoted_float(str(var.dtype), str(other.dtype)) if op_type in _PROMOTING else None
        if common is not None:
            warnings.warn(
                f"The input dtypes of OP {op_type} are {var.dtype} and {other.dtype}, "
                f"the output will be auto-promoted to {common}"
            )
            var = var if var.dtype == common else _cast(helper, var, common)
        other = _cast(helper, other, common or var.dtype)
    x, y = (other, var) if reverse else (var, other)
    if op_type == "elementwise_div" and str(x.dtype) in INT_DTYPES:
        x, y = _cast(helper, x, "float32"), _cast(helper, y, "float32")
    out = helper.create_variable_for_type_inference("bool" if op_type in _COMPARE else x.dtype)
    helper.append_op(op_type, {"X": [x], "Y": [y]}, {"Out": [out]}, {"axis": -1})
    return out


def _cast(helper, var, dtype):
    if var.dtype == dtype:
        return var
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("cast", {"X": [var]}, {"Out": [out]}, {"in_dtype": var.dtype, "out_dtype": dtype})
    return out


def scale_op(helper, var, scale, bias):
    """var * scale + bias, of var's dtype (both releases' form of an operator with a scalar)."""
    out = helper.create_variable_for_type_inference(var.dtype)
    helper.append_op("scale", {"X": [var]}, {"Out": [out]}, {"scale": scale, "bias": bias})
    return out


def constant_like(helper, var, value, shape=()):
    """A constant of var's dtype: a scalar operand as a tensor (0-D: Paddle 2.6's; Fluid 1.8's is [1])."""
    out = helper.create_variable_for_type_inference(var.dtype, stop_gradient=True)
    helper.append_op("fill_constant", {}, {"Out": [out]}, {"shape": list(shape), "value": value, "dtype": var.dtype})
    return out
