"""Kernels of ops/quantization.py: structured kernels (meta rules: shapes/quantization.py), each a numpy form with
no ``out=``, the "numpy" variant (``fresh``: kernels/structured.fresh_kernel hands over the arrays it makes); a value
passed through as it is (fake_quantize_grad's X@GRAD, moving_average_abs_max_scale's Out) the rule's alias of its
input, which the out-kernel leaves. The kernels by name (the adapters below) are also run on the host by the CUDA
kernels (kernels/cuda/quantization.py)."""

import numpy as np

from ...shapes import quantization as rules
from ..structured import adapter, fresh_kernel


def _inverse(s):
    """Fluid's inverse(): 1 / s, with 1e-6 added to a scale of (nearly) zero."""
    return 1.0 / (s + 1e-6) if s <= 1e-30 else 1.0 / s


def clip_and_quantize(x, scale, bits):
    """round(clip(x, -s, s) * (2^(bits-1) - 1) / s), halves rounded away from zero (std::round)."""
    bin_cnt = (1 << (bits - 1)) - 1
    v = np.clip(x, -scale, scale) * (bin_cnt * _inverse(float(scale)))
    return (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(x.dtype)


def _abs_max(x):
    return float(np.max(np.abs(x))) if x.size else 0.0


def _scalar(value, dtype):
    return np.array([value], dtype=dtype)


def _fake_quantize_abs_max(ins, attrs):
    x = ins["X"]
    s = _abs_max(x)
    return {"Out": clip_and_quantize(x, s, attrs["bit_length"]), "OutScale": _scalar(s, x.dtype)}


def _fake_quantize_range_abs_max(ins, attrs):
    x = ins["X"]
    last = float(np.asarray(ins["InScale"]).reshape(-1)[0])
    if attrs["is_test"]:
        return {"Out": clip_and_quantize(x, last, attrs["bit_length"]), "OutScale": _scalar(last, x.dtype)}
    cur, window = _abs_max(x), attrs["window_size"]
    step = int(np.asarray(ins["Iter"]).reshape(-1)[0])
    scales = np.array(ins["InScales"], dtype=x.dtype).reshape(-1) if "InScales" in ins else np.zeros(window, x.dtype)
    removed, scales[step % window] = float(scales[step % window]), cur
    s = last
    if s < cur:
        s = cur
    elif abs(removed - s) < 1e-6:  # the window's largest left it: the largest of what is there
        s = float(np.max(scales[: min(step, window)])) if step > 0 else cur
    return {"Out": clip_and_quantize(x, s, attrs["bit_length"]), "OutScale": _scalar(s, x.dtype), "OutScales": scales}


def _fake_quantize_moving_average_abs_max(ins, attrs):
    x = ins["X"]
    if attrs["is_test"]:
        s = float(np.asarray(ins["InScale"]).reshape(-1)[0])
        return {"Out": clip_and_quantize(x, s, attrs["bit_length"]), "OutScale": _scalar(s, x.dtype)}
    rate = attrs["moving_rate"]
    state = rate * float(np.asarray(ins["InState"]).reshape(-1)[0]) + 1.0
    accum = rate * float(np.asarray(ins["InAccum"]).reshape(-1)[0]) + _abs_max(x)
    s = accum / state
    return {
        "Out": clip_and_quantize(x, s, attrs["bit_length"]),
        "OutScale": _scalar(s, x.dtype),
        "OutState": _scalar(state, x.dtype),
        "OutAccum": _scalar(accum, x.dtype),
    }


def _fake_dequantize_max_abs(ins, attrs):
    x = ins["X"]
    scale = np.asarray(ins["Scale"]).reshape(-1)[0]
    return {"Out": (x * (scale / attrs["max_range"])).astype(x.dtype)}


def _channel_abs_max(x):
    """max|X[i]| of each slice i of dim 0."""
    flat = x.reshape(x.shape[0], -1)
    return np.abs(flat).max(axis=1) if flat.shape[1] else np.zeros(x.shape[0], x.dtype)


def _fake_channel_wise_quantize_abs_max(ins, attrs):
    x = ins["X"]
    scales = _channel_abs_max(x).astype(x.dtype)
    out = np.empty_like(x)
    for i, s in enumerate(scales):
        out[i] = clip_and_quantize(x[i], float(s), attrs["bit_length"])
    return {"Out": out, "OutScale": scales}


def _fake_channel_wise_dequantize_max_abs(ins, attrs):
    x, scales, bits = ins["X"], ins["Scales"], attrs["quant_bits"]
    first = np.asarray(scales[0]).reshape(-1).astype(x.dtype)
    if len(scales) == 1:  # (Scales' sizes: the rule checked them)
        max_range = int(2 ** (bits[0] - 1) - 1)
        return {"Out": (first.reshape((-1,) + (1,) * (x.ndim - 1)) * x / x.dtype.type(max_range)).astype(x.dtype)}
    second = np.asarray(scales[1]).reshape(-1).astype(x.dtype)
    max_range = int((2 ** (bits[0] - 1) - 1) * (2 ** (bits[1] - 1) - 1))
    s = (first * second[0]).reshape((1, -1) + (1,) * (x.ndim - 2))
    return {"Out": (s * x / x.dtype.type(max_range)).astype(x.dtype)}


def _fake_quantize_dequantize_moving_average_abs_max(ins, attrs):
    outs = _fake_quantize_moving_average_abs_max(ins, attrs)
    s = float(outs["OutScale"][0])
    bin_cnt = (1 << (attrs["bit_length"] - 1)) - 1
    outs["Out"] = (outs["Out"] * (s / bin_cnt)).astype(ins["X"].dtype)
    return outs


def _moving_average_abs_max_scale(ins, attrs):
    x = ins["X"]  # (Out is X: the rule's alias)
    if attrs["is_test"]:
        return {}
    rate = attrs["moving_rate"]
    state = rate * float(np.asarray(ins["InState"]).reshape(-1)[0]) + 1.0
    accum = rate * float(np.asarray(ins["InAccum"]).reshape(-1)[0]) + _abs_max(x)
    return {
        "OutScale": _scalar(accum / state, x.dtype),
        "OutState": _scalar(state, x.dtype),
        "OutAccum": _scalar(accum, x.dtype),
    }


def _dequantize_abs_max(ins, attrs):
    scale = np.float32(np.asarray(ins["Scale"]).reshape(-1)[0])
    return {"Out": (scale * ins["X"].astype(np.float32) / np.float32(attrs["max_range"])).astype(np.float32)}


def _dequantize_log(ins, attrs):
    x, table = ins["X"].astype(np.int64), np.asarray(ins["Dict"], np.float32).reshape(-1)
    return {"Out": np.where(x < 0, -table[np.where(x < 0, x + 128, 0)], table[np.where(x < 0, 0, x)])}


def _saturate(v, dtype):
    """oneDNN's reorder into an int type: round half to even, then clip to the type's range."""
    info = np.iinfo(dtype)
    return np.clip(np.rint(v), info.min, info.max).astype(dtype)


def _quantize(ins, attrs):
    dtype = np.int8 if attrs["is_negative_input"] else np.uint8
    return {"Output": _saturate(ins["Input"].astype(np.float32) * np.float32(attrs["Scale"]), dtype)}


def _dequantize(ins, attrs):
    return {"Output": ins["Input"].astype(np.float32) * np.float32(1.0 / np.float32(attrs["Scale"]))}


def _requantize(ins, attrs):
    x = ins["Input"]
    shift = np.float32(np.float32(attrs["Scale_out"]) / np.float32(attrs["Scale_in"]))
    return {"Output": _saturate(x.astype(np.float32) * shift, x.dtype)}


def _through(ins, outs, attrs, meta):
    """fake_quantize_grad: X@GRAD is Out@GRAD (the rule's alias), nothing to compute."""


_through.launches = None

_FORMS = {  # op type -> (its meta rule, its out-kernel)
    "fake_quantize_abs_max": (rules.fake_quantize_abs_max_meta, _fake_quantize_abs_max),
    "fake_quantize_range_abs_max": (rules.fake_quantize_range_abs_max_meta, _fake_quantize_range_abs_max),
    "fake_quantize_moving_average_abs_max": (rules.moving_average_meta, _fake_quantize_moving_average_abs_max),
    "fake_dequantize_max_abs": (rules.fake_dequantize_max_abs_meta, _fake_dequantize_max_abs),
    "fake_channel_wise_quantize_abs_max": (
        rules.fake_channel_wise_quantize_abs_max_meta,
        _fake_channel_wise_quantize_abs_max,
    ),
    "fake_channel_wise_dequantize_max_abs": (
        rules.fake_channel_wise_dequantize_max_abs_meta,
        _fake_channel_wise_dequantize_max_abs,
    ),
    "fake_quantize_dequantize_moving_average_abs_max": (
        rules.moving_average_meta,
        _fake_quantize_dequantize_moving_average_abs_max,
    ),
    "moving_average_abs_max_scale": (rules.moving_average_abs_max_scale_meta, _moving_average_abs_max_scale),
    "dequantize_abs_max": (rules.to_float32_meta, _dequantize_abs_max),
    "dequantize_log": (rules.to_float32_meta, _dequantize_log),
    "quantize": (rules.quantize_meta, _quantize),
    "dequantize": (rules.dequantize_meta, _dequantize),
    "requantize": (rules.requantize_meta, _requantize),
}
META = {op: rule for op, (rule, _) in _FORMS.items()}
OUT = {op: fresh_kernel(compute, f"{op}_out") for op, (_, compute) in _FORMS.items()}
META["fake_quantize_grad"], OUT["fake_quantize_grad"] = rules.fake_quantize_grad_meta, _through

# (by name: CUDA's host kernels, kernels/cuda/quantization.py's HOST_OPS)
(
    fake_quantize_abs_max,
    fake_quantize_range_abs_max,
    fake_quantize_moving_average_abs_max,
    fake_dequantize_max_abs,
    fake_channel_wise_quantize_abs_max,
    fake_channel_wise_dequantize_max_abs,
    fake_quantize_dequantize_moving_average_abs_max,
    moving_average_abs_max_scale,
    dequantize_abs_max,
    dequantize_log,
    quantize,
    dequantize,
    requantize,
    fake_quantize_grad,
) = (adapter(META[op], OUT[op], op) for op in (*_FORMS, "fake_quantize_grad"))
