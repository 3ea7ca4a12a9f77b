"""Kernels of ops/quantization.py (numpy), also run on the host by the CUDA kernels."""

import numpy as np

from ...base.errors import PeError


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


def fake_quantize_abs_max(ins, attrs):
    x = ins["X"]
    s = _abs_max(x)
    return {"Out": clip_and_quantize(x, s, attrs["bit_length"]), "OutScale": _scalar(s, x.dtype)}


def fake_quantize_range_abs_max(ins, attrs):
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


def fake_quantize_moving_average_abs_max(ins, attrs):
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


def fake_dequantize_max_abs(ins, attrs):
    x = ins["X"]
    scale = np.asarray(ins["Scale"]).reshape(-1)[0]
    return {"Out": (x * (scale / attrs["max_range"])).astype(x.dtype)}


def fake_quantize_grad(ins, attrs):
    return {"X@GRAD": ins["Out@GRAD"]}


def _channel_abs_max(x):
    """max|X[i]| of each slice i of dim 0."""
    flat = x.reshape(x.shape[0], -1)
    return np.abs(flat).max(axis=1) if flat.shape[1] else np.zeros(x.shape[0], x.dtype)


def fake_channel_wise_quantize_abs_max(ins, attrs):
    x = ins["X"]
    scales = _channel_abs_max(x).astype(x.dtype)
    out = np.empty_like(x)
    for i, s in enumerate(scales):
        out[i] = clip_and_quantize(x[i], float(s), attrs["bit_length"])
    return {"Out": out, "OutScale": scales}


def fake_channel_wise_dequantize_max_abs(ins, attrs):
    x, scales, bits = ins["X"], ins["Scales"], attrs["quant_bits"]
    first = np.asarray(scales[0]).reshape(-1).astype(x.dtype)
    if len(scales) == 1:
        if first.size != x.shape[0]:
            raise PeError(f"Scales[0] has {first.size} values for the {x.shape[0]} slices of X's dim 0")
        max_range = int(2 ** (bits[0] - 1) - 1)
        return {"Out": (first.reshape((-1,) + (1,) * (x.ndim - 1)) * x / x.dtype.type(max_range)).astype(x.dtype)}
    second = np.asarray(scales[1]).reshape(-1).astype(x.dtype)
    if x.ndim < 2 or first.size != x.shape[1] or second.size != 1:
        raise PeError(
            f"Scales {[first.size, second.size]}: two Scales take one value per channel of X's dim 1 and one value"
        )
    max_range = int((2 ** (bits[0] - 1) - 1) * (2 ** (bits[1] - 1) - 1))
    s = (first * second[0]).reshape((1, -1) + (1,) * (x.ndim - 2))
    return {"Out": (s * x / x.dtype.type(max_range)).astype(x.dtype)}


def fake_quantize_dequantize_moving_average_abs_max(ins, attrs):
    outs = fake_quantize_moving_average_abs_max(ins, attrs)
    s = float(outs["OutScale"][0])
    bin_cnt = (1 << (attrs["bit_length"] - 1)) - 1
    outs["Out"] = (outs["Out"] * (s / bin_cnt)).astype(ins["X"].dtype)
    return outs


def moving_average_abs_max_scale(ins, attrs):
    x = ins["X"]
    if attrs["is_test"]:
        return {"Out": x}
    rate = attrs["moving_rate"]
    state = rate * float(np.asarray(ins["InState"]).reshape(-1)[0]) + 1.0
    accum = rate * float(np.asarray(ins["InAccum"]).reshape(-1)[0]) + _abs_max(x)
    return {
        "Out": x,
        "OutScale": _scalar(accum / state, x.dtype),
        "OutState": _scalar(state, x.dtype),
        "OutAccum": _scalar(accum, x.dtype),
    }


def dequantize_abs_max(ins, attrs):
    scale = np.float32(np.asarray(ins["Scale"]).reshape(-1)[0])
    return {"Out": (scale * ins["X"].astype(np.float32) / np.float32(attrs["max_range"])).astype(np.float32)}


def dequantize_log(ins, attrs):
    x, table = ins["X"].astype(np.int64), np.asarray(ins["Dict"], np.float32).reshape(-1)
    return {"Out": np.where(x < 0, -table[np.where(x < 0, x + 128, 0)], table[np.where(x < 0, 0, x)])}


def _saturate(v, dtype):
    """oneDNN's reorder into an int type: round half to even, then clip to the type's range."""
    info = np.iinfo(dtype)
    return np.clip(np.rint(v), info.min, info.max).astype(dtype)


def quantize(ins, attrs):
    dtype = np.int8 if attrs["is_negative_input"] else np.uint8
    return {"Output": _saturate(ins["Input"].astype(np.float32) * np.float32(attrs["Scale"]), dtype)}


def dequantize(ins, attrs):
    return {"Output": ins["Input"].astype(np.float32) * np.float32(1.0 / np.float32(attrs["Scale"]))}


def requantize(ins, attrs):
    x = ins["Input"]
    shift = np.float32(np.float32(attrs["Scale_out"]) / np.float32(attrs["Scale_in"]))
    return {"Output": _saturate(x.astype(np.float32) * shift, x.dtype)}
