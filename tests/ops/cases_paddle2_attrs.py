"""Op cases of the attributes Paddle 2.x added to pe's op types, or whose meaning it changed (docs/COMPAT.md,
"Every attribute"): each against numpy's reference, forward and gradient; tests/cuda runs them on the CUDA
kernels too. The models Paddle 2.6.2 saved with them (tests/io/test_paddle26_saved_models.py) hold them to
the oracle's values."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(85)


def r(*shape):
    return rng.standard_normal(shape)


def _pixel_shuffle_nhwc(i, a):
    x, f = i["X"], a["upscale_factor"]
    n, h, w, c = x.shape
    out = x.reshape(n, h, w, c // (f * f), f, f).transpose(0, 1, 4, 2, 5, 3).reshape(n, h * f, w * f, c // (f * f))
    return {"Out": out}


def _temporal_shift_nhwc(i, a):
    x, t = i["X"], a["seg_num"]
    nt, h, w, c = x.shape
    v = x.reshape(nt // t, t, h, w, c)
    c1, c2 = int(c * a["shift_ratio"]), int(2 * c * a["shift_ratio"])
    out = v.copy()
    out[:, :, :, :, :c1] = 0
    out[:, 1:, :, :, :c1] = v[:, :-1, :, :, :c1]
    out[:, :, :, :, c1:c2] = 0
    out[:, :-1, :, :, c1:c2] = v[:, 1:, :, :, c1:c2]
    return {"Out": out.reshape(x.shape)}


def _pool_paddle2(i, a):
    """avg pooling, exclusive off, ceil_mode: Paddle 2.x's divisor, the window clipped to the padded input."""
    x, (k, s, p) = i["X"], (a["ksize"][0], a["strides"][0], a["paddings"][0])
    n, c, h, w = x.shape
    ho = -(-(h + 2 * p - k) // s) + 1
    out = np.zeros((n, c, ho, ho))
    for oh in range(ho):
        for ow in range(ho):
            hs, ws = oh * s - p, ow * s - p
            he, we = min(hs + k, h + p), min(ws + k, w + p)
            win = x[:, :, max(hs, 0) : min(he, h), max(ws, 0) : min(we, w)]
            out[:, :, oh, ow] = win.sum(axis=(2, 3)) / ((he - hs) * (we - ws))
    return {"Out": out}


def _linspace_paddle2(i, a):
    start, stop, num = float(i["Start"][0]), float(i["Stop"][0]), int(i["Num"][0])
    step = (stop - start) / (num - 1)
    k = np.arange(num)
    return {"Out": np.where(k < num // 2, start + step * k, stop - step * (num - 1 - k)).astype(a["dtype"])}


_POOL = {
    "pooling_type": "avg",
    "ksize": [2, 2],
    "strides": [2, 2],
    "paddings": [0, 0],
    "ceil_mode": True,
    "exclusive": False,
}

CASES = [
    OpCase(
        "gather",
        {"X": r(2, 5, 3), "Index": np.array([4, 0, 4], np.int64)},
        lambda i, a: {"Out": np.take(i["X"], i["Index"], axis=1)},
        attrs={"axis": 1},
        grad=("X",),
        name="gather_axis_1",
    ),
    OpCase(
        "gather",
        {"X": r(2, 3, 4), "Index": np.array([3, 1], np.int32), "Axis": np.array([-1], np.int64)},
        lambda i, a: {"Out": np.take(i["X"], i["Index"], axis=2)},
        grad=("X",),
        name="gather_axis_tensor",
    ),
    OpCase(
        "pixel_shuffle",
        {"X": r(2, 3, 2, 8)},
        _pixel_shuffle_nhwc,
        attrs={"upscale_factor": 2, "data_format": "NHWC"},
        grad=("X",),
        name="pixel_shuffle_nhwc",
    ),
    OpCase(
        "temporal_shift",
        {"X": r(4, 2, 3, 8)},
        _temporal_shift_nhwc,
        attrs={"seg_num": 2, "shift_ratio": 0.25, "data_format": "NHWC"},
        grad=("X",),
        name="temporal_shift_nhwc",
    ),
    OpCase(
        "roll",
        {"X": r(3, 4)},
        lambda i, a: {"Out": np.roll(i["X"].reshape(-1), 5).reshape(3, 4)},
        attrs={"shifts": [5], "axis": []},
        grad=("X",),
        name="roll_flattened",
    ),
    OpCase(
        "flip",
        {"X": r(2, 3, 4)},
        lambda i, a: {"Out": i["X"][:, ::-1, ::-1]},
        attrs={"axis": [1, -1]},
        grad=("X",),
        name="flip_axis",
    ),
    OpCase(
        "p_norm",
        {"X": r(2, 3, 4)},
        lambda i, a: {"Out": np.array(np.sum(np.abs(i["X"]) ** 3) ** (1 / 3))},
        attrs={"porder": 3.0, "asvector": True},
        grad=("X",),
        name="p_norm_asvector",
    ),
    OpCase(
        "p_norm",
        {"X": r(2, 3)},
        lambda i, a: {"Out": np.full((1, 1), np.sqrt(np.sum(i["X"] ** 2)))},
        attrs={"porder": 2.0, "asvector": True, "keepdim": True},
        grad=("X",),
        name="p_norm_asvector_keepdim",
    ),
    OpCase(
        "linspace",
        {"Start": np.array([0.1], np.float32), "Stop": np.array([1.3], np.float64), "Num": np.array([7], np.int32)},
        _linspace_paddle2,
        attrs={"dtype": "float64"},
        name="linspace_paddle2",
    ),
    OpCase(
        "leaky_relu",
        {"X": r(3, 4)},
        lambda i, a: {"Out": np.where(i["X"] > 0, i["X"], 2.5 * i["X"])},
        attrs={"alpha": 2.5},
        paddle2=True,
        grad=("X",),
        name="leaky_relu_paddle2_alpha_above_1",
    ),
    OpCase(
        "elu",
        {"X": r(3, 4)},
        lambda i, a: {"Out": np.where(i["X"] > 0, i["X"], -0.5 * np.expm1(i["X"]))},
        attrs={"alpha": -0.5},
        paddle2=True,
        grad=("X",),
        name="elu_paddle2_negative_alpha",
    ),
    OpCase(
        "hard_shrink",
        {"X": r(3, 4)},
        lambda i, a: {"Out": i["X"].copy()},
        attrs={"threshold": -0.5},
        paddle2=True,
        grad=("X",),
        name="hard_shrink_paddle2_negative_threshold",
    ),
    OpCase(
        "pool2d",
        {"X": r(2, 3, 5, 5)},
        _pool_paddle2,
        attrs=_POOL,
        grad=("X",),
        paddle2=True,
        name="pool2d_paddle2_ceil",
    ),
    OpCase(
        "pool2d",
        {"X": r(1, 2, 6, 6)},
        _pool_paddle2,
        attrs=dict(_POOL, ksize=[3, 3], paddings=[1, 1]),
        grad=("X",),
        paddle2=True,
        name="pool2d_paddle2_ceil_padded",
    ),
]


# a reduction's dims given when the op runs (paddle.sum(x, axis=Tensor)): one int tensor (AxisTensor) or one
# per dim (AxisTensorList); the gradient op reads them too
_REDUCE = {
    "sum": np.sum,
    "mean": np.mean,
    "max": np.max,
    "min": np.min,
    "prod": np.prod,
    "amax": np.max,
    "amin": np.min,
}


def _reduced(fn, dims, keep):
    return lambda i, a: {"Out": fn(i["X"], axis=dims, keepdims=keep)}


for _i, (_name, _fn) in enumerate(_REDUCE.items()):
    _dims, _keep = ((1,), (0, 2), (2,), (0, 1))[_i % 4], _i % 3 == 0
    _given = np.array([d - 3 * (k % 2) for k, d in enumerate(_dims)], np.int64 if _i % 2 else np.int32)
    for _slot, _value in (("AxisTensor", _given), ("AxisTensorList", [_given[k : k + 1] for k in range(len(_dims))])):
        CASES.append(
            OpCase(
                f"reduce_{_name}",
                {"X": r(2, 3, 4), _slot: _value},
                _reduced(_fn, _dims, _keep),
                attrs={"keep_dim": _keep},
                grad=("X",),
                name=f"reduce_{_name}_{_slot}",
            )
        )
CASES.append(
    OpCase(
        "reduce_any",
        {"X": r(2, 3, 4) > 1, "AxisTensor": np.array([2], np.int64)},
        lambda i, a: {"Out": (i["X"]).any(axis=2)},
        name="reduce_any_AxisTensor",
    )
)
