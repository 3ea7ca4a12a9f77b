"""Op cases for the fake quantization ops (ops/quantization.py) against numpy written from Fluid 1.8's
formulas. Their gradients are straight-through (X@GRAD = Out@GRAD), not derivatives of a step function,
so finite differences do not apply: tests/fluid/contrib/test_quantize_transpiler.py checks the pass-through."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(52)
_X = rng.normal(size=(3, 5))
_X[1, 2] = 0.5 / 127 * 2.5        # lands on a half: rounded away from zero, as std::round
_X[0, 0] = -2.5                     # the largest magnitude, negative


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
    return {"Out": _quant(i["X"], accum / state), "OutScale": _scalar(accum / state),
            "OutState": _scalar(state), "OutAccum": _scalar(accum)}


CASES = [
    OpCase("fake_quantize_abs_max", {"X": _X}, _abs_max),
    OpCase("fake_quantize_abs_max", {"X": _X}, _abs_max, attrs={"bit_length": 4}, name="fake_quantize_abs_max_4bit"),
    OpCase("fake_quantize_range_abs_max",
           {"X": _X, "InScale": _scalar(4.0), "Iter": np.array([3], dtype="int64"),
            "InScales": np.array([1.0, 3.0, 2.0, 4.0])}, _range_train, attrs={"window_size": 4}),
    OpCase("fake_quantize_range_abs_max", {"X": _X, "InScale": _scalar(2.0)},
           lambda i, a: {"Out": _quant(i["X"], 2.0), "OutScale": _scalar(2.0)},
           attrs={"window_size": 4, "is_test": True}, name="fake_quantize_range_abs_max_test"),
    OpCase("fake_quantize_moving_average_abs_max",
           {"X": _X, "InScale": _scalar(1.0), "InState": _scalar(2.0), "InAccum": _scalar(3.0)}, _moving),
    OpCase("fake_quantize_moving_average_abs_max", {"X": _X, "InScale": _scalar(1.5)},
           lambda i, a: {"Out": _quant(i["X"], 1.5), "OutScale": _scalar(1.5)}, attrs={"is_test": True},
           name="fake_quantize_moving_average_abs_max_test"),
    OpCase("fake_dequantize_max_abs", {"X": np.round(_X * 40), "Scale": _scalar(2.5)},
           lambda i, a: {"Out": i["X"] * 2.5 / 127.0}, attrs={"max_range": 127.0}),
]
