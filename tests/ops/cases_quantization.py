"""Op cases for the fake quantization ops (ops/quantization.py) against numpy written from Fluid 1.8's
formulas. Their gradients are straight-through (X@GRAD = Out@GRAD), not derivatives of a step function,
so finite differences do not apply: tests/fluid/contrib/test_quantize_transpiler.py checks the pass-through."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(52)
_X = rng.normal(size=(3, 5))
_X[1, 2] = 0.5 / 127 * 2.5  # lands on a half: rounded away from zero, as std::round
_X[0, 0] = -2.5  # the largest magnitude, negative


def _quant(x, s, bits=8):
    v = np.clip(x, -s, s) * ((2 ** (bits - 1) - 1) / s)
    return np.where(v >= 0, np.floor(v + 0.5), np.ceil(v - 0.5))


def _scalar(v):
    return np.array([v], dtype=np.float64)


def _abs_max(i, a):
    s = np.abs(i["X"]).max()
    return {"Out": _quant(i["X"], s, a.get("bit_length", 8)), "OutScale": _scalar(s)}


def _range_train(i, a):
    # step 3 of a window of 4: slot 3 gets max|X| = 2.5; the previous largest (InScale 4.0) is slot 3's
    # old value, so it leaves the window: s = the largest of slots 0..2 (Fluid looks at min(Iter, window) slots) = 3.0
    scales = i["InScales"].copy()
    scales[3] = 2.5
    return {"Out": _quant(i["X"], 3.0), "OutScale": _scalar(3.0), "OutScales": scales}


def _moving(i, a):
    state = 0.9 * 2.0 + 1
    accum = 0.9 * 3.0 + 2.5
    return {
        "Out": _quant(i["X"], accum / state),
        "OutScale": _scalar(accum / state),
        "OutState": _scalar(state),
        "OutAccum": _scalar(accum),
    }


CASES = [
    OpCase("fake_quantize_abs_max", {"X": _X}, _abs_max),
    OpCase("fake_quantize_abs_max", {"X": _X}, _abs_max, attrs={"bit_length": 4}, name="fake_quantize_abs_max_4bit"),
    OpCase(
        "fake_quantize_range_abs_max",
        {
            "X": _X,
            "InScale": _scalar(4.0),
            "Iter": np.array([3], dtype="int64"),
            "InScales": np.array([1.0, 3.0, 2.0, 4.0]),
        },
        _range_train,
        attrs={"window_size": 4},
    ),
    OpCase(
        "fake_quantize_range_abs_max",
        {"X": _X, "InScale": _scalar(2.0)},
        lambda i, a: {"Out": _quant(i["X"], 2.0), "OutScale": _scalar(2.0)},
        attrs={"window_size": 4, "is_test": True},
        name="fake_quantize_range_abs_max_test",
    ),
    OpCase(
        "fake_quantize_moving_average_abs_max",
        {"X": _X, "InScale": _scalar(1.0), "InState": _scalar(2.0), "InAccum": _scalar(3.0)},
        _moving,
    ),
    OpCase(
        "fake_quantize_moving_average_abs_max",
        {"X": _X, "InScale": _scalar(1.5)},
        lambda i, a: {"Out": _quant(i["X"], 1.5), "OutScale": _scalar(1.5)},
        attrs={"is_test": True},
        name="fake_quantize_moving_average_abs_max_test",
    ),
    OpCase(
        "fake_dequantize_max_abs",
        {"X": np.round(_X * 40), "Scale": _scalar(2.5)},
        lambda i, a: {"Out": i["X"] * 2.5 / 127.0},
        attrs={"max_range": 127.0},
    ),
]

# -- the other quantization ops of Fluid 1.8 (no gradient there) --
_W = rng.normal(size=(3, 2, 2))
_W[1, 0, 1] = -1.5  # channel 1's largest magnitude, negative


def _channel_quant(i, a):
    s = np.abs(i["X"]).reshape(3, -1).max(axis=1)
    return {"Out": np.stack([_quant(i["X"][k], s[k]) for k in range(3)]), "OutScale": s}


_INT8 = np.array([[-128, -3, 0], [5, 127, -1]], dtype=np.int8)
_DICT = np.linspace(0.0, 2.0, 128).astype(np.float32)

CASES += [
    OpCase("fake_channel_wise_quantize_abs_max", {"X": _W}, _channel_quant),
    OpCase(
        "fake_channel_wise_dequantize_max_abs",
        {"X": np.round(_W * 40), "Scales": [np.array([1.0, 2.0, 0.5])]},
        lambda i, a: {"Out": i["X"] * np.array([1.0, 2.0, 0.5]).reshape(3, 1, 1) / 127},
    ),
    OpCase(
        "fake_channel_wise_dequantize_max_abs",
        {"X": np.round(_W * 40), "Scales": [np.array([1.0, 3.0]), np.array([2.0])]},
        lambda i, a: {"Out": i["X"] * (np.array([1.0, 3.0]).reshape(1, 2, 1) * 2.0) / (127 * 7)},
        attrs={"quant_bits": [8, 4]},
        name="fake_channel_wise_dequantize_max_abs_two_scales",
    ),
    OpCase(
        "fake_quantize_dequantize_moving_average_abs_max",
        {"X": _X, "InScale": _scalar(1.0), "InState": _scalar(2.0), "InAccum": _scalar(3.0)},
        lambda i, a: dict(_moving(i, a), Out=_moving(i, a)["Out"] * (_moving(i, a)["OutScale"][0] / 127)),
    ),
    OpCase(
        "moving_average_abs_max_scale",
        {"X": _X, "InState": _scalar(2.0), "InAccum": _scalar(3.0)},
        lambda i, a: {
            "Out": i["X"],
            "OutScale": _moving(i, a)["OutScale"],
            "OutState": _scalar(2.8),
            "OutAccum": _scalar(5.2),
        },
    ),
    OpCase(
        "dequantize_abs_max",
        {"X": _INT8, "Scale": np.array([2.5], np.float32)},
        lambda i, a: {"Out": (2.5 * i["X"].astype(np.float32) / 127).astype(np.float32)},
        attrs={"max_range": 127.0},
        rtol=1e-6,
    ),
    OpCase(
        "dequantize_log",
        {"X": _INT8, "Dict": _DICT},
        lambda i, a: {"Out": np.array([[-_DICT[0], -_DICT[125], _DICT[0]], [_DICT[5], _DICT[127], -_DICT[127]]])},
    ),
    # oneDNN's reorders: halves to even (2.5 -> 2, -0.5 -> -0), saturated (300 -> 127 / 255, -7 -> 0 as uint8)
    OpCase(
        "quantize",
        {"Input": np.array([[0.25, -0.05, 30.0], [-0.7, 0.35, 0.0]], np.float32)},
        lambda i, a: {"Output": np.array([[2, 0, 127], [-7, 4, 0]], np.int8)},
        attrs={"Scale": 10.0, "is_negative_input": True},
    ),
    OpCase(
        "quantize",
        {"Input": np.array([[0.25, -0.05, 30.0], [-0.7, 0.35, 0.0]], np.float32)},
        lambda i, a: {"Output": np.array([[2, 0, 255], [0, 4, 0]], np.uint8)},
        attrs={"Scale": 10.0},
        name="quantize_uint8",
    ),
    OpCase(
        "dequantize",
        {"Input": _INT8},
        lambda i, a: {"Output": i["Input"] * np.float32(1 / np.float32(4.0))},
        attrs={"Scale": 4.0},
    ),
    OpCase(
        "requantize",
        {"Input": _INT8},
        lambda i, a: {"Output": np.array([[-128, -4, 0], [6, 127, -1]], np.int8)},
        attrs={"Scale_in": 4.0, "Scale_out": 5.0},
    ),
]
