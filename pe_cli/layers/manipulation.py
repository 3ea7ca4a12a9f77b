"""Tensor and math layers with Fluid 1.x signatures: creating, combining, reshaping and indexing
tensors, matmul, the elementwise binaries, reductions and clip. Each appends one op (or a few)
through LayerHelper; shape mistakes are reported when the layer is built."""
__all__ = ["concat", "split", "stack", "reshape", "transpose", "flatten", "squeeze", "unsqueeze", "cast",
           "slice", "gather", "one_hot", "expand", "matmul", "mul", "clip",
           "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_max",
           "elementwise_min", "elementwise_pow", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
           "sums", "fill_constant", "zeros", "ones", "zeros_like", "assign", "create_tensor",
           "create_global_var", "create_parameter"]
import numbers

import numpy as np

from ..errors import PeError
from ..dtypes import convert_dtype
from ..framework.variable import Variable
from ..initializer import ConstantInitializer
from ..param_attr import ParamAttr
from ..ops.tensor import values_attr
from .helper import LayerHelper


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _check_ints(layer, what, values):
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        raise PeError(f"{layer}: {what} must be a list of ints, got {values!r}")
    return [int(v) for v in values]


def _single(op_type, x, inputs, attrs, name=None, act=None, dtype=None, stop_gradient=False, **helper_kwargs):
    """Appends op_type with one output 'Out' (act applied after); returns the output."""
    helper = LayerHelper(op_type, x=x, name=name, act=act, **helper_kwargs)
    out = helper.create_variable_for_type_inference(dtype or x.dtype, stop_gradient=stop_gradient)
    helper.append_op(op_type, inputs, {"Out": [out]}, attrs)
    return helper.append_activation(out)


# -- combining and cutting ----------------------------------------------------------------------

def concat(input, axis=0, name=None):
    """Joins the variables of ``input`` along ``axis``; the other dims must agree."""
    inputs = _as_list(input)
    helper = LayerHelper("concat", input=inputs, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op("concat", {"X": inputs}, {"Out": [out]}, {"axis": axis})
    return out


def split(input, num_or_sections, dim=-1, name=None):
    """Cuts ``input`` along ``dim`` into ``num_or_sections`` equal parts (an int), or parts of the
    listed sizes (one may be -1: the rest). Returns the list of parts."""
    helper = LayerHelper("split", input=input, name=name)
    if isinstance(num_or_sections, numbers.Integral) and not isinstance(num_or_sections, bool):
        if num_or_sections <= 0:
            raise PeError(f"split '{helper.name}': num_or_sections={num_or_sections} must be > 0")
        num, sections, count = int(num_or_sections), [], int(num_or_sections)
    elif isinstance(num_or_sections, (list, tuple)) and num_or_sections:
        num, sections = 0, _check_ints(f"split '{helper.name}'", "num_or_sections", num_or_sections)
        count = len(sections)
    else:
        raise PeError(f"split '{helper.name}': num_or_sections must be an int or a non-empty list, "
                      f"got {num_or_sections!r}")
    outs = [helper.create_variable_for_type_inference(input.dtype) for _ in range(count)]
    helper.append_op("split", {"X": [input]}, {"Out": outs}, {"axis": dim, "num": num, "sections": sections})
    return outs


def stack(x, axis=0, name=None):
    """Stacks variables of one shape along a new dim ``axis``."""
    inputs = _as_list(x)
    helper = LayerHelper("stack", x=inputs, name=name)
    out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op("stack", {"X": inputs}, {"Y": [out]}, {"axis": axis})
    return out


# -- reshaping ----------------------------------------------------------------------------------

def reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None):
    """``x`` with a new shape: a 0 copies x's dim at that index, one -1 is inferred from the rest.
    ``shape`` may also be an int Variable, or ``actual_shape`` one, giving the shape at run time
    (the ``shape`` list, when given, is then the build-time shape). ``inplace`` is accepted and
    ignored: the output is always a new variable."""
    inputs = {"X": [x]}
    if isinstance(shape, Variable):
        inputs["Shape"] = [shape]
        shape = []
    elif isinstance(shape, (list, tuple)):
        shape = _check_ints(f"reshape of '{x.name}'", "shape", shape)
    else:
        raise PeError(f"reshape of '{x.name}': shape must be a list of ints or a Variable, got {shape!r}")
    if actual_shape is not None:
        inputs["Shape"] = [actual_shape]
    return _single("reshape", x, inputs, {"shape": shape}, name=name, act=act)


def transpose(x, perm, name=None):
    """``x`` with its dims permuted: output dim i is x's dim perm[i]."""
    return _single("transpose", x, {"X": [x]}, {"axis": _check_ints("transpose", "perm", _as_list(perm))},
                   name=name)


def flatten(x, axis=1, name=None):
    """``x`` as a matrix: dims before ``axis`` make the rows, the others the columns."""
    return _single("flatten", x, {"X": [x]}, {"axis": axis}, name=name)


def squeeze(input, axes, name=None):
    """``input`` without the listed dims of size 1."""
    return _single("squeeze", input, {"X": [input]}, {"axes": _check_ints("squeeze", "axes", _as_list(axes))},
                   name=name)


def unsqueeze(input, axes, name=None):
    """``input`` with dims of size 1 inserted at ``axes`` (one after another)."""
    return _single("unsqueeze", input, {"X": [input]},
                   {"axes": _check_ints("unsqueeze", "axes", _as_list(axes))}, name=name)


def cast(x, dtype):
    """``x`` converted to ``dtype``; the gradient is cast back."""
    dtype = convert_dtype(dtype)
    return _single("cast", x, {"X": [x]}, {"in_dtype": x.dtype, "out_dtype": dtype}, dtype=dtype)


def expand(x, expand_times, name=None):
    """``x`` tiled ``expand_times[i]`` times along each dim i."""
    return _single("expand", x, {"X": [x]},
                   {"expand_times": _check_ints("expand", "expand_times", _as_list(expand_times))}, name=name)


# -- indexing -----------------------------------------------------------------------------------

def slice(input, axes, starts, ends):
    """input[starts[i]:ends[i]] along each axes[i]; bounds as in Python (negative from the end,
    clamped to the dim)."""
    helper = LayerHelper("slice", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("slice", {"Input": [input]}, {"Out": [out]},
                     {"axes": list(axes), "starts": list(starts), "ends": list(ends)})
    return out


def gather(input, index, overwrite=True):
    """Rows of ``input`` picked by the int32/int64 ``index`` (1-D or [N, 1]). The gradient adds into
    the picked rows, repeated rows accumulating."""
    helper = LayerHelper("gather", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("gather", {"X": [input], "Index": [index]}, {"Out": [out]}, {"overwrite": overwrite})
    return out


def one_hot(input, depth, allow_out_of_range=False):
    """int ids [N, 1] -> float32 [N, depth] one-hot rows. No gradient."""
    helper = LayerHelper("one_hot", input=input)
    out = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    helper.append_op("one_hot", {"X": [input]}, {"Out": [out]},
                     {"depth": depth, "allow_out_of_range": allow_out_of_range})
    return out


# -- math -----------------------------------------------------------------------------------------

def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    """alpha * op(x) @ op(y); leading dims are batches and broadcast; a 1-D x is a row vector, a 1-D
    y a column vector (the dim they add is dropped from the result)."""
    return _single("matmul", x, {"X": [x], "Y": [y]},
                   {"transpose_X": transpose_x, "transpose_Y": transpose_y, "alpha": float(alpha)}, name=name)


def mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    """x @ y with x flattened to a matrix at ``x_num_col_dims`` (its leading dims are rows) and y at
    ``y_num_col_dims``: Fluid's ``mul``, the product inside ``fc``."""
    return _single("mul", x, {"X": [x], "Y": [y]},
                   {"x_num_col_dims": x_num_col_dims, "y_num_col_dims": y_num_col_dims}, name=name)


def clip(x, min, max, name=None):
    """min(max(x, min), max); the gradient passes where min < x < max."""
    return _single("clip", x, {"X": [x]}, {"min": min, "max": max}, name=name)


def _elementwise(op_type):
    def layer(x, y, axis=-1, act=None, name=None):
        return _single(op_type, x, {"X": [x], "Y": [y]}, {"axis": axis}, name=name, act=act)
    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = (f"Appends '{op_type}' (then ``act``): y broadcasts into x from dim ``axis`` "
                     f"(-1: aligned to the end).")
    return layer


elementwise_add = _elementwise("elementwise_add")
elementwise_sub = _elementwise("elementwise_sub")
elementwise_mul = _elementwise("elementwise_mul")
elementwise_div = _elementwise("elementwise_div")
elementwise_max = _elementwise("elementwise_max")
elementwise_min = _elementwise("elementwise_min")
elementwise_pow = _elementwise("elementwise_pow")


def _reduce(op_type):
    def layer(input, dim=None, keep_dim=False, name=None):
        dims = [] if dim is None else _as_list(dim)
        reduce_all = not dims or len(dims) == len(input.shape or ())
        attrs = {"dim": dims or [0], "keep_dim": keep_dim, "reduce_all": reduce_all}
        return _single(op_type, input, {"X": [input]}, attrs, name=name)
    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = (f"Appends '{op_type}' over the dims ``dim`` (an int or a list; None: all dims, "
                     f"giving shape [1] unless keep_dim).")
    return layer


reduce_sum = _reduce("reduce_sum")
reduce_mean = _reduce("reduce_mean")
reduce_max = _reduce("reduce_max")
reduce_min = _reduce("reduce_min")


# -- creating -----------------------------------------------------------------------------------

def sums(input, out=None):
    """The sum of a list of variables of one shape."""
    inputs = _as_list(input)
    helper = LayerHelper("sum", input=inputs)
    if out is None:
        out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op("sum", {"X": inputs}, {"Out": [out]})
    return out


def fill_constant(shape, dtype, value, force_cpu=False, out=None):
    """A variable of ``shape`` and ``dtype`` filled with ``value`` (no gradient flows to it)."""
    helper = LayerHelper("fill_constant")
    dtype = convert_dtype(dtype)
    shape = _check_ints("fill_constant", "shape", _as_list(shape))
    if out is None:
        out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_constant", {}, {"Out": [out]},
                     {"shape": shape, "dtype": dtype, "value": float(value), "force_cpu": force_cpu})
    out.stop_gradient = True
    return out


def zeros(shape, dtype, force_cpu=False):
    return fill_constant(shape, dtype, 0.0, force_cpu)


def ones(shape, dtype, force_cpu=False):
    return fill_constant(shape, dtype, 1.0, force_cpu)


def zeros_like(x, out=None):
    """Zeros shaped like ``x``."""
    helper = LayerHelper("zeros_like", x=x)
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("fill_zeros_like", {"X": [x]}, {"Out": [out]})
    out.stop_gradient = True
    return out


def assign(input, output=None):
    """A copy of a Variable, or a variable holding a numpy array's values (float64 arrays become
    float32, as in Fluid)."""
    helper = LayerHelper("assign", input=input)
    if isinstance(input, Variable):
        if output is None:
            output = helper.create_variable_for_type_inference(input.dtype)
        helper.append_op("assign", {"X": [input]}, {"Out": [output]})
        return output
    array = np.asarray(input)
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    dtype = convert_dtype(array.dtype)
    if output is None:
        output = helper.create_variable_for_type_inference(dtype)
    helper.append_op("assign_value", {}, {"Out": [output]},
                     {"shape": list(array.shape), "dtype": dtype, values_attr(dtype): array.reshape(-1).tolist()})
    return output


def create_tensor(dtype, name=None, persistable=False):
    """An empty variable to be written by a later op (``assign(x, output=t)``)."""
    helper = LayerHelper("create_tensor", name=name)
    return helper.create_variable(name=helper.name, dtype=dtype, persistable=persistable)


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable of the main program's global block, filled with ``value`` by the startup program."""
    helper = LayerHelper("global_var", name=name)
    var = helper.create_global_variable(name=name, shape=list(shape), dtype=dtype, persistable=persistable,
                                        stop_gradient=True)
    helper.set_variable_initializer(var, ConstantInitializer(float(value)))
    return var


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """A trainable parameter outside any layer (``ParamAttr`` decides its name and initializer)."""
    helper = LayerHelper("create_parameter", name=name)
    attr = ParamAttr._to_attr(attr)
    if name is not None and attr is not False and attr.name is None:
        attr.name = name
    return helper.create_parameter(attr, list(shape), dtype, is_bias, default_initializer)


__all__ += ["sum"]


def sum(x):   # noqa: A001 -- Fluid's name; it shadows the builtin in this module, which never calls it
    """Fluid's ``layers.sum``: the ``sum`` op over a variable or a list of variables of one shape."""
    return sums(x)
