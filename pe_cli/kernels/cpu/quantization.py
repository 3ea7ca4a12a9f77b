"""Kernels of ops/quantization.py (numpy), also run on the host by the CUDA kernels."""
import numpy as np


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
    scales = np.array(ins["InScales"], dtype=x.dtype).reshape(-1)
    removed, scales[step % window] = float(scales[step % window]), cur
    s = last
    if s < cur:
        s = cur
    elif abs(removed - s) < 1e-6:       # the window's largest left it: the largest of what is there
        s = float(np.max(scales[:min(step, window)])) if step > 0 else cur
    return {"Out": clip_and_quantize(x, s, attrs["bit_length"]), "OutScale": _scalar(s, x.dtype),
            "OutScales": scales}


def fake_quantize_moving_average_abs_max(ins, attrs):
    x = ins["X"]
    if attrs["is_test"]:
        s = float(np.asarray(ins["InScale"]).reshape(-1)[0])
        return {"Out": clip_and_quantize(x, s, attrs["bit_length"]), "OutScale": _scalar(s, x.dtype)}
    rate = attrs["moving_rate"]
    state = rate * float(np.asarray(ins["InState"]).reshape(-1)[0]) + 1.0
    accum = rate * float(np.asarray(ins["InAccum"]).reshape(-1)[0]) + _abs_max(x)
    s = accum / state
    return {"Out": clip_and_quantize(x, s, attrs["bit_length"]), "OutScale": _scalar(s, x.dtype),
            "OutState": _scalar(state, x.dtype), "OutAccum": _scalar(accum, x.dtype)}


def fake_dequantize_max_abs(ins, attrs):
    x = ins["X"]
    scale = np.asarray(ins["Scale"]).reshape(-1)[0]
    return {"Out": (x * (scale / attrs["max_range"])).astype(x.dtype)}


def fake_quantize_grad(ins, attrs):
    return {"X@GRAD": ins["Out@GRAD"]}
