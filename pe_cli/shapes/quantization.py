"""The meta rules (shapes/structured.py) of the quantization ops: ops/quantization.py's (Fluid 1.8's fake
quantization ops, the int8 inference ops and oneDNN's quantize / dequantize / requantize) and
ops/quantization_linear.py's (Paddle 2.x's quantize_linear / dequantize_linear). Their CPU out-kernels
(kernels/cpu/quantization.py, kernels/cpu/quantization_linear.py) are numpy forms with no ``out=`` (a scale is a
reduction over X, then a few passes of ufuncs): each rule decides the "numpy" variant, ``fresh``, and the outputs'
shapes and dtypes those arrays have. A value passed through as it is (fake_quantize_grad's X@GRAD,
moving_average_abs_max_scale's Out) is a ``Meta.aliases`` of its input. Training (``is_test`` False) adds the
scale's state outputs: the range op's ring OutScales, the moving averages' OutState and OutAccum."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta

_ONE = (1,)
_F32 = np.dtype(np.float32)


def _numpy(outputs, aliases=None):
    specs = {slot: (tuple(shape), np.dtype(dtype)) for slot, (shape, dtype) in outputs.items()}
    return Meta(specs, "numpy", fresh=True, aliases=aliases or {})


def _quantized(x, *state):
    """Out of X's shape and dtype, and one value of X's dtype per scale slot of ``state``."""
    return _numpy({"Out": (x.shape, x.dtype), **{slot: (_ONE, x.dtype) for slot in ("OutScale", *state)}})


def fake_quantize_abs_max_meta(attrs, ins, facts):
    return _quantized(ins["X"])


def fake_quantize_range_abs_max_meta(attrs, ins, facts):
    x = ins["X"]
    meta = _quantized(x)
    if attrs["is_test"]:
        return meta
    return _numpy({**meta.outputs, "OutScales": ((attrs["window_size"],), x.dtype)})


def moving_average_meta(attrs, ins, facts):
    """fake_quantize_moving_average_abs_max's and fake_quantize_dequantize_moving_average_abs_max's."""
    return _quantized(ins["X"]) if attrs["is_test"] else _quantized(ins["X"], "OutState", "OutAccum")


def fake_dequantize_max_abs_meta(attrs, ins, facts):
    return _numpy({"Out": (ins["X"].shape, ins["X"].dtype)})


def fake_quantize_grad_meta(attrs, ins, facts):
    g = ins["Out@GRAD"]
    return Meta({"X@GRAD": (tuple(g.shape), np.dtype(g.dtype))}, "through", aliases={"X@GRAD": "Out@GRAD"})


def fake_channel_wise_quantize_abs_max_meta(attrs, ins, facts):
    x = ins["X"]
    return _numpy({"Out": (x.shape, x.dtype), "OutScale": ((x.shape[0],), x.dtype)})


def _size(spec):
    return int(np.prod(spec.shape, dtype=np.int64))


def fake_channel_wise_dequantize_max_abs_meta(attrs, ins, facts):
    x, scales = ins["X"], ins["Scales"]
    shape, first = tuple(x.shape), _size(scales[0])
    if len(scales) == 1:
        if first != shape[0]:
            raise PeError(f"Scales[0] has {first} values for the {shape[0]} slices of X's dim 0")
    else:
        second = _size(scales[1])
        if len(shape) < 2 or first != shape[1] or second != 1:
            raise PeError(f"Scales {[first, second]}: two Scales take one value per channel of X's dim 1 and one value")
    return _numpy({"Out": (shape, x.dtype)})


def moving_average_abs_max_scale_meta(attrs, ins, facts):
    x = ins["X"]
    out = {"Out": (x.shape, x.dtype)}
    if not attrs["is_test"]:
        out.update({slot: (_ONE, x.dtype) for slot in ("OutScale", "OutState", "OutAccum")})
    return _numpy(out, aliases={"Out": "X"})


def to_float32_meta(attrs, ins, facts):
    """dequantize_abs_max's and dequantize_log's Out: X's shape in float32."""
    return _numpy({"Out": (ins["X"].shape, _F32)})


def quantize_meta(attrs, ins, facts):
    return _numpy({"Output": (ins["Input"].shape, np.int8 if attrs["is_negative_input"] else np.uint8)})


def dequantize_meta(attrs, ins, facts):
    return _numpy({"Output": (ins["Input"].shape, _F32)})


def requantize_meta(attrs, ins, facts):
    return _numpy({"Output": (ins["Input"].shape, ins["Input"].dtype)})


def quantize_linear_meta(attrs, ins, facts):
    return _numpy({"Y": (ins["X"].shape, ins["X"].dtype)})


def dequantize_linear_meta(attrs, ins, facts):
    return _numpy({"Y": (ins["X"].shape, ins["Scale"].dtype)})
