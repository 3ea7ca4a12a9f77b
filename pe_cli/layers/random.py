"""Random tensors with Fluid 1.x signatures: ``uniform_random`` and ``gaussian_random``, and their
``*_batch_size_like`` forms sized by an input's batch at run time, one op each (their values follow the
program's ``random_seed`` and ``seed`` as the initializers' do; no gradient), and random_crop (a
window of each instance at offsets drawn from a seed variable); and Fluid 1.8's names from
paddle.tensor: randn, randint and randperm (their ops)."""

__all__ = [
    "uniform_random",
    "gaussian_random",
    "uniform_random_batch_size_like",
    "gaussian_random_batch_size_like",
    "random_crop",
    "randn",
    "randint",
    "randperm",
]
import numbers

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentTypeError, ArgumentValueError, PeError
from ..framework import unique_name
from ..framework.variable import Variable
from ..training.initializer import ConstantInitializer
from .checks import check_type, check_variable_and_dtype, fluid_checks, optional
from .creation import assign
from .helper import LayerHelper, _as_list, check_ints
from .shape_tensor import shape_inputs


def _random(op_type, shape, dtype, attrs, name, zero_dim=False):
    helper = LayerHelper(op_type, name=name)
    dtype = convert_dtype(dtype)
    if not isinstance(shape, (list, tuple, int, Variable)):
        raise TypeError(
            f"The type of 'shape' in {op_type} must be (list, tuple, Variable), but received {type(shape)}."
        )
    attrs = dict(attrs, dtype=dtype)
    # a Variable, or a list holding some: run-time shapes; [] with ``zero_dim`` (Paddle 2.x's): a 0-D tensor
    inputs = shape_inputs(op_type, shape, {}, attrs, zero_dim=zero_dim)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(op_type, inputs, {"Out": [out]}, attrs)
    return out


@fluid_checks("uniform_random", shape=(list, tuple, Variable))
def uniform_random(shape, dtype="float32", min=-1.0, max=1.0, seed=0, *, name=None, zero_dim=False):
    """A tensor of ``shape`` drawn from U[min, max) (``zero_dim``: shape [] is a 0-D tensor, as in Paddle 2.x)."""
    attrs = {"min": float(min), "max": float(max), "seed": int(seed)}
    return _random("uniform_random", shape, dtype, attrs, name, zero_dim)


def gaussian_random(shape, mean=0.0, std=1.0, seed=0, dtype="float32", *, name=None, zero_dim=False):
    """A tensor of ``shape`` drawn from N(mean, std^2) (``zero_dim``: shape [] is a 0-D tensor, as in Paddle 2.x)."""
    attrs = {"mean": float(mean), "std": float(std), "seed": int(seed)}
    return _random("gaussian_random", shape, dtype, attrs, name, zero_dim)


def _random_like(op_type, input, shape, dtype, input_dim_idx, output_dim_idx, attrs):
    check_type(input, "input", Variable, op_type)
    check_type(shape, "shape", (list, tuple), op_type)
    helper = LayerHelper(op_type)
    dtype = convert_dtype(dtype)
    shape = check_ints(op_type, "shape", _as_list(shape))
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        op_type,
        {"Input": [input]},
        {"Out": [out]},
        dict(attrs, shape=shape, dtype=dtype, input_dim_idx=int(input_dim_idx), output_dim_idx=int(output_dim_idx)),
    )
    return out


def uniform_random_batch_size_like(
    input, shape, dtype="float32", input_dim_idx=0, output_dim_idx=0, min=-1.0, max=1.0, seed=0
):
    """U[min, max) draws of ``shape``, whose dim ``output_dim_idx`` is ``input``'s ``input_dim_idx``
    at run time (the batch size)."""
    check_variable_and_dtype(input, "Input", ("float32", "float64"), "uniform_random_batch_size_like")
    return _random_like(
        "uniform_random_batch_size_like",
        input,
        shape,
        dtype,
        input_dim_idx,
        output_dim_idx,
        {"min": float(min), "max": float(max), "seed": int(seed)},
    )


def gaussian_random_batch_size_like(
    input, shape, input_dim_idx=0, output_dim_idx=0, mean=0.0, std=1.0, seed=0, dtype="float32"
):
    """N(mean, std^2) draws of ``shape``, whose dim ``output_dim_idx`` is ``input``'s
    ``input_dim_idx`` at run time (the batch size)."""
    return _random_like(
        "gaussian_random_batch_size_like",
        input,
        shape,
        dtype,
        input_dim_idx,
        output_dim_idx,
        {"mean": float(mean), "std": float(std), "seed": int(seed)},
    )


def random_crop(x, shape, seed=None):
    """For each instance of ``x`` (its leading dims), a window of ``shape`` over its last dims at
    random offsets, new on every run. ``seed``: an int starting the sequence (None: a random one),
    or an int64 [1] Variable holding it; the op writes the next seed back to it, as Fluid's."""
    check_variable_and_dtype(x, "x", ("float32", "float64", "uint8", "int16", "int32"), "random_crop")
    check_type(shape, "shape", (list, tuple, Variable), "random_crop")
    helper = LayerHelper("random_crop", x=x)
    shape = check_ints("random_crop", "shape", _as_list(shape))
    if seed is None:
        seed = int(np.random.randint(-65536, 65536))
    attrs = {"shape": shape}
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        attrs["startup_seed"] = int(seed)
        seed_var = helper.create_global_variable(
            name=unique_name.generate("random_crop_seed"),
            shape=[1],
            dtype="int64",
            persistable=True,
            stop_gradient=True,
        )
        helper.set_variable_initializer(seed_var, ConstantInitializer(float(seed)))
        seed = seed_var
    elif not isinstance(seed, Variable):
        raise PeError(f"random_crop: seed must be an int or a Variable, got {seed!r}")
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("random_crop", {"X": [x], "Seed": [seed]}, {"Out": [out], "SeedOut": [seed]}, attrs)
    return out


def _dtype_in(layer, dtype, allowed):
    dtype = convert_dtype(dtype)
    if dtype not in allowed:
        raise ArgumentTypeError(f"{layer}: dtype must be one of {', '.join(allowed)}, got {dtype}")
    return dtype


def _finish(out, result, stop_gradient):
    result = result if out is None else assign(result, out)
    result.stop_gradient = stop_gradient
    return result


def randn(shape, out=None, dtype=None, device=None, stop_gradient=True, name=None):
    """A tensor of ``shape`` drawn from the standard normal, of ``dtype`` (None: float32)."""
    dtype = _dtype_in("randn", "float32" if dtype is None else dtype, ("float32", "float64"))
    return _finish(out, gaussian_random(shape, 0.0, 1.0, dtype=dtype, name=name), stop_gradient)


def _randop(op_type, inputs, attrs, out, dtype, stop_gradient):
    """Appends ``op_type`` writing ``out`` (or a new variable of ``dtype``), as Fluid 1.8's randint and
    randperm write the ``out`` a caller gives."""
    helper = LayerHelper(op_type)
    if out is None:
        out = helper.create_variable_for_type_inference(dtype)
    else:
        check_variable_and_dtype(out, "out", (dtype,), op_type)  # a TypeError, as Fluid's
    attrs["dtype"] = dtype
    helper.append_op(op_type, inputs, {"Out": [out]}, attrs)
    out.stop_gradient = stop_gradient
    return out


@fluid_checks("randint", shape=optional((list, tuple, Variable)))
def randint(
    low,
    high=None,
    shape=None,
    out=None,
    dtype=None,
    device=None,
    stop_gradient=False,
    seed=0,
    name=None,
    *,
    zero_dim=False,
):
    """Integers uniform in [low, high) (only ``low``: [0, low)), of ``shape`` (None: [1]; a Variable, or a list
    holding Variables, gives it at run time; [] with ``zero_dim``, Paddle 2.x's: a 0-D tensor) and ``dtype``
    (None: int64): Fluid 1.8's randint op."""
    dtype = _dtype_in("randint", "int64" if dtype is None else dtype, ("int32", "int64"))
    if high is None:
        low, high = 0, low
    if high <= low:
        raise ArgumentValueError(
            f"randint's low must less then high, but received low = {low}, high = {high} "
            f"(low must be smaller than high)"
        )
    attrs = {"low": int(low), "high": int(high), "seed": int(seed)}
    inputs = shape_inputs("randint", [1] if shape is None else shape, {}, attrs, zero_dim=zero_dim)
    return _randop("randint", inputs, attrs, out, dtype, stop_gradient)


def randperm(n, out=None, dtype="int64", device=None, stop_gradient=True, seed=0):
    """A random permutation of 0 .. n-1, of ``dtype``: Fluid 1.8's randperm op."""
    dtype = _dtype_in("randperm", dtype, ("int32", "int64", "float32", "float64"))
    if not isinstance(n, numbers.Integral) or n < 1:
        raise ArgumentValueError(
            f"randperm: n={n!r} must be an int >= 1 (The input n should be greater than 0 in randperm op.)"
        )
    if device not in (None, "cpu", "gpu"):
        raise ArgumentValueError("The input device should in [None, 'cpu', 'gpu'].")
    return _randop("randperm", {}, {"n": int(n), "seed": int(seed)}, out, dtype, stop_gradient)
