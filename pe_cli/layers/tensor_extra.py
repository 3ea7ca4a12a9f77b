"""More tensor and math layers of Fluid 1.8's ``fluid.layers``, with its signatures: cumsum, range,
ones_like, eye, diag, reverse, where, expand_as, size, isfinite / has_inf / has_nan, reduce_prod /
reduce_all / reduce_any, elementwise_floordiv / elementwise_mod, add_position_encoding, random_crop, hash, continuous_value_model."""
__all__ = ["cumsum", "range", "ones_like", "eye", "diag", "reverse", "where", "expand_as", "size", "isfinite",
           "has_inf", "has_nan", "reduce_prod", "reduce_all", "reduce_any", "elementwise_floordiv",
           "elementwise_mod", "add_position_encoding", "random_crop", "hash",
           "continuous_value_model"]
import numbers

import numpy as np

from ..dtypes import convert_dtype
from ..errors import PeError
from ..framework import unique_name
from ..framework.variable import Variable
from ..training.initializer import ConstantInitializer
from ..shapes import range_length
from .helper import LayerHelper
from .tensor import _as_list, _check_ints, _elementwise, _reduce, _single, assign, expand, fill_constant, reshape


def cumsum(x, axis=None, exclusive=None, reverse=None):
    """The running sum of ``x`` along ``axis`` (None: -1, the last dim); ``exclusive`` leaves each
    element out of its own sum, ``reverse`` sums from the end."""
    attrs = {"axis": -1 if axis is None else axis, "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return _single("cumsum", x, {"X": [x]}, attrs)


_RANGE_DTYPES = ("float32", "float64", "int32", "int64")


def range(start, end, step, dtype):  # noqa: A001 -- Fluid's name
    """The 1-D tensor [start, start + step, ...) stopping before ``end``; each of start, end and
    step is a number or a one-element Variable of ``dtype``. No gradient."""
    dtype = convert_dtype(dtype)
    if dtype not in _RANGE_DTYPES:
        raise PeError(f"range: dtype {dtype} is not one of {list(_RANGE_DTYPES)}")
    numbers_ = [v for v in (start, end, step) if not isinstance(v, Variable)]
    length = None
    if len(numbers_) == 3:
        typed = [np.dtype(dtype).type(v) for v in (start, end, step)]
        length = range_length(*typed, integer=dtype.startswith("int"))
        if length is None:
            raise PeError(f"range: step={step} does not lead from start={start} to end={end}; it must be "
                          f"nonzero, positive when start < end and negative when start > end")
    start, end, step = (v if isinstance(v, Variable) else fill_constant([1], dtype, v) for v in (start, end, step))
    helper = LayerHelper("range")
    out = helper.create_variable_for_type_inference(start.dtype, stop_gradient=True)
    helper.append_op("range", {"Start": [start], "End": [end], "Step": [step]}, {"Out": [out]})
    if length is not None:
        out.shape = (length,)
    out.stop_gradient = True
    return out


def ones_like(x, out=None):
    """Ones shaped like ``x``, of its dtype (no gradient flows through)."""
    helper = LayerHelper("ones_like", x=x)
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("fill_any_like", {"X": [x]}, {"Out": [out]}, {"value": 1.0})
    out.stop_gradient = True
    return out


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float32"):
    """The [num_rows, num_columns] identity matrix (num_columns None: square), repeated over
    ``batch_shape`` leading dims when given."""
    helper = LayerHelper("eye")
    num_columns = num_rows if num_columns is None else num_columns
    for what, v in (("num_rows", num_rows), ("num_columns", num_columns)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 0:
            raise PeError(f"eye: {what} must be an int >= 0, got {v!r}")
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("eye", {}, {"Out": [out]},
                     {"num_rows": int(num_rows), "num_columns": int(num_columns), "dtype": dtype})
    out.stop_gradient = True
    if batch_shape is not None:
        batch = _check_ints("eye", "batch_shape", _as_list(batch_shape))
        out = reshape(out, [1] * len(batch) + [int(num_rows), int(num_columns)])
        out = expand(out, batch + [1, 1])
        out.stop_gradient = True
    return out


def diag(diagonal):
    """The square matrix with ``diagonal`` (a 1-D Variable or numpy array) on its main diagonal."""
    if not isinstance(diagonal, Variable):
        diagonal = assign(np.asarray(diagonal))
    helper = LayerHelper("diag", diagonal=diagonal)
    out = helper.create_variable_for_type_inference(diagonal.dtype, stop_gradient=True)
    helper.append_op("diag", {"Diagonal": [diagonal]}, {"Out": [out]})
    out.stop_gradient = True
    return out


def reverse(x, axis):
    """``x`` with its elements in reverse order along ``axis`` (an int or a list of ints)."""
    return _single("reverse", x, {"X": [x]}, {"axis": _check_ints("reverse", "axis", _as_list(axis))})


def where(condition):
    """The int64 coordinates [N, rank] of the true elements of ``condition`` (Fluid 1.8's where)."""
    helper = LayerHelper("where_index", condition=condition)
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("where_index", {"Condition": [condition]}, {"Out": [out]})
    out.stop_gradient = True
    return out


def expand_as(x, target_tensor, name=None):
    """``x`` tiled to ``target_tensor``'s shape (each of its dims a multiple of x's)."""
    return _single("expand_as", x, {"X": [x], "target_tensor": [target_tensor]}, {}, name=name)


def size(input):
    """The number of elements of ``input``, an int64 tensor of shape [1]."""
    return _single("size", input, {"Input": [input]}, {}, dtype="int64", stop_gradient=True)


def _flag(op_type, layer, doc):
    def fn(x):
        return _single(op_type, x, {"X": [x]}, {}, dtype="bool", stop_gradient=True)
    fn.__name__ = fn.__qualname__ = layer
    fn.__doc__ = doc
    return fn


isfinite = _flag("isfinite", "isfinite", "A bool [1]: True when every element of ``x`` is finite.")
has_inf = _flag("isinf", "has_inf", "A bool [1]: True when some element of ``x`` is +inf or -inf.")
has_nan = _flag("isnan", "has_nan", "A bool [1]: True when some element of ``x`` is nan.")

reduce_prod = _reduce("reduce_prod")
reduce_all = _reduce("reduce_all")
reduce_any = _reduce("reduce_any")
elementwise_floordiv = _elementwise("elementwise_floordiv")
elementwise_mod = _elementwise("elementwise_mod")


def add_position_encoding(input, alpha, beta, name=None):
    """alpha * input + beta * sinusoidal position encodings (sines in the first half of the last
    dim, cosines in the second), positions counted within each sequence: the second dim of a 3-D
    input, or the rows of each sequence of a 2-D LoDTensor."""
    return _single("add_position_encoding", input, {"X": [input]}, {"alpha": float(alpha), "beta": float(beta)},
                   name=name)


def random_crop(x, shape, seed=None):
    """For each instance of ``x`` (its leading dims), a window of ``shape`` over its last dims at
    random offsets, new on every run. ``seed``: an int starting the sequence (None: a random one),
    or an int64 [1] Variable holding it; the op writes the next seed back to it, as Fluid's."""
    helper = LayerHelper("random_crop", x=x)
    shape = _check_ints("random_crop", "shape", _as_list(shape))
    if seed is None:
        seed = int(np.random.randint(-65536, 65536))
    attrs = {"shape": shape}
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        attrs["startup_seed"] = int(seed)
        seed_var = helper.create_global_variable(name=unique_name.generate("random_crop_seed"), shape=[1],
                                                 dtype="int64", persistable=True, stop_gradient=True)
        helper.set_variable_initializer(seed_var, ConstantInitializer(float(seed)))
        seed = seed_var
    elif not isinstance(seed, Variable):
        raise PeError(f"random_crop: seed must be an int or a Variable, got {seed!r}")
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("random_crop", {"X": [x], "Seed": [seed]}, {"Out": [out], "SeedOut": [seed]}, attrs)
    return out


def hash(input, hash_size, num_hash=1, name=None):  # noqa: A001 -- Fluid's name
    """``num_hash`` XXH64 hashes (seeds 0, 1, ...) of each row of int ids ``input`` [N, k], modulo
    ``hash_size``: shape [N, num_hash, 1], of input's dtype. No gradient."""
    for what, v in (("hash_size", hash_size), ("num_hash", num_hash)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v <= 0:
            raise PeError(f"hash: {what} must be an int > 0, got {v!r}")
    return _single("hash", input, {"X": [input]}, {"num_hash": int(num_hash), "mod_by": int(hash_size)},
                   name=name, stop_gradient=True)


def continuous_value_model(input, cvm, use_cvm=True):
    """CTR features whose first two columns are show and click counts: with ``use_cvm`` they become
    log(show + 1) and log(click + 1) - log(show + 1), else they are dropped. The gradient is
    Fluid's: ``cvm`` [N, 2] (per sequence for LoD input) on those columns."""
    helper = LayerHelper("cvm", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("cvm", {"X": [input], "CVM": [cvm]}, {"Y": [out]}, {"use_cvm": bool(use_cvm)})
    return out
