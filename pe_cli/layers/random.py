"""Random tensors with Fluid 1.x signatures: ``uniform_random`` and ``gaussian_random``, one op each
(their values follow the program's ``random_seed`` and ``seed`` as the initializers' do; no gradient)."""
from ..dtypes import convert_dtype
from .helper import LayerHelper
from .tensor import _as_list, _check_ints

__all__ = ["uniform_random", "gaussian_random"]


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
