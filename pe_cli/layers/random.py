"""Random tensors with Fluid 1.x signatures: ``uniform_random`` and ``gaussian_random``, and their
``*_batch_size_like`` forms sized by an input's batch at run time, one op each (their values follow the
program's ``random_seed`` and ``seed`` as the initializers' do; no gradient)."""
from ..dtypes import convert_dtype
from .helper import LayerHelper
from .tensor import _as_list, _check_ints

__all__ = ["uniform_random", "gaussian_random", "uniform_random_batch_size_like",
           "gaussian_random_batch_size_like"]


def _random(op_type, shape, dtype, attrs, name):
    helper = LayerHelper(op_type, name=name)
    dtype = convert_dtype(dtype)
    shape = _check_ints(op_type, "shape", _as_list(shape))
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(op_type, {}, {"Out": [out]}, dict(attrs, shape=shape, dtype=dtype))
    return out


def uniform_random(shape, dtype="float32", min=-1.0, max=1.0, seed=0, name=None):
    """A tensor of ``shape`` drawn from U[min, max)."""
    return _random("uniform_random", shape, dtype, {"min": float(min), "max": float(max), "seed": int(seed)}, name)


def gaussian_random(shape, mean=0.0, std=1.0, seed=0, dtype="float32", name=None):
    """A tensor of ``shape`` drawn from N(mean, std^2)."""
    return _random("gaussian_random", shape, dtype, {"mean": float(mean), "std": float(std), "seed": int(seed)}, name)


def _random_like(op_type, input, shape, dtype, input_dim_idx, output_dim_idx, attrs):
    helper = LayerHelper(op_type)
    dtype = convert_dtype(dtype)
    shape = _check_ints(op_type, "shape", _as_list(shape))
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(op_type, {"Input": [input]}, {"Out": [out]},
                     dict(attrs, shape=shape, dtype=dtype, input_dim_idx=int(input_dim_idx),
                          output_dim_idx=int(output_dim_idx)))
    return out


def uniform_random_batch_size_like(input, shape, dtype="float32", input_dim_idx=0, output_dim_idx=0,
                                   min=-1.0, max=1.0, seed=0):
    """U[min, max) draws of ``shape``, whose dim ``output_dim_idx`` is ``input``'s ``input_dim_idx``
    at run time (the batch size)."""
    return _random_like("uniform_random_batch_size_like", input, shape, dtype, input_dim_idx, output_dim_idx,
                        {"min": float(min), "max": float(max), "seed": int(seed)})


def gaussian_random_batch_size_like(input, shape, input_dim_idx=0, output_dim_idx=0, mean=0.0, std=1.0,
                                    seed=0, dtype="float32"):
    """N(mean, std^2) draws of ``shape``, whose dim ``output_dim_idx`` is ``input``'s
    ``input_dim_idx`` at run time (the batch size)."""
    return _random_like("gaussian_random_batch_size_like", input, shape, dtype, input_dim_idx, output_dim_idx,
                        {"mean": float(mean), "std": float(std), "seed": int(seed)})
