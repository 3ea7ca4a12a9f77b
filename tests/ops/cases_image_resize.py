"""Op cases for the resize ops of ops/image.py: nearest_interp and bilinear_interp (align_corners, align_mode 0/1,
NCHW/NHWC, scale, OutSize). References are loops over the output pixels as in Fluid 1.8's
test_nearest_interp_op.py and test_bilinear_interp_op.py (ratios in float32 as Fluid's kernel).
Paddle 2.x's *_interp_v2: a `scale` list, a Scale tensor, SizeTensor, and the ratio 1 / scale, as
Paddle 2.x's test_bilinear_interp_v2_op.py computes it."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(53)
F = np.float32


def r(*shape):
    return rng.normal(size=shape)


def _ratio(n_in, n_out, corners, scale=0.0):
    if n_out <= 1:
        return F(0)
    if corners:
        return F(n_in - 1) / F(n_out - 1)
    return F(1.0 / scale) if scale > 0 else F(n_in) / F(n_out)


def _nearest_ref(out_h, out_w, corners=True, nhwc=False, scales=(0.0, 0.0)):
    def ref(i, a):
        x = i["X"].transpose(0, 3, 1, 2) if nhwc else i["X"]
        n, c, h, w = x.shape
        rh, rw = _ratio(h, out_h, corners, scales[0]), _ratio(w, out_w, corners, scales[1])
        out = np.zeros((n, c, out_h, out_w))
        for k in range(out_h):
            y = int(rh * F(k) + F(0.5)) if corners else int(rh * F(k))
            for m in range(out_w):
                xx = int(rw * F(m) + F(0.5)) if corners else int(rw * F(m))
                out[:, :, k, m] = x[:, :, y, xx]
        return {"Out": out.transpose(0, 2, 3, 1) if nhwc else out}

    return ref


def _source(ratio, k, n_in, half):
    lo = int(ratio * (F(k) + F(0.5)) - F(0.5)) if half else int(ratio * F(k))
    lo = max(lo, 0)
    hi = lo + 1 if lo < n_in - 1 else lo
    src = max(ratio * (F(k) + F(0.5)) - F(0.5), F(0))
    d = F(src - lo) if half else F(ratio * F(k) - lo)
    return lo, hi, d


def _bilinear_ref(out_h, out_w, corners=True, mode=1, nhwc=False, scales=(0.0, 0.0)):
    def ref(i, a):
        x = i["X"].transpose(0, 3, 1, 2) if nhwc else i["X"]
        n, c, h, w = x.shape
        half = mode == 0 and not corners
        rh, rw = _ratio(h, out_h, corners, scales[0]), _ratio(w, out_w, corners, scales[1])
        out = np.zeros((n, c, out_h, out_w))
        for k in range(out_h):
            y0, y1, dy = _source(rh, k, h, half)
            for m in range(out_w):
                x0, x1, dx = _source(rw, m, w, half)
                out[:, :, k, m] = (
                    x[:, :, y0, x0] * (1 - dy) * (1 - dx)
                    + x[:, :, y1, x0] * dy * (1 - dx)
                    + x[:, :, y0, x1] * (1 - dy) * dx
                    + x[:, :, y1, x1] * dy * dx
                )
        return {"Out": out.transpose(0, 2, 3, 1) if nhwc else out}

    return ref


CASES = [
    OpCase("nearest_interp", {"X": r(2, 3, 4, 5)}, _nearest_ref(7, 3), attrs={"out_h": 7, "out_w": 3}, grad=("X",)),
    OpCase(
        "nearest_interp",
        {"X": r(1, 2, 3, 4)},
        _nearest_ref(5, 8, corners=False),
        attrs={"out_h": 5, "out_w": 8, "align_corners": False},
        grad=("X",),
        name="nearest_interp_no_corners",
    ),
    OpCase(
        "nearest_interp",
        {"X": r(2, 4, 3, 2)},
        _nearest_ref(8, 6, nhwc=True),
        attrs={"scale": 2.0, "data_layout": "NHWC"},
        grad=("X",),
        name="nearest_interp_scale_nhwc",
    ),
    OpCase(
        "nearest_interp",
        {"X": r(1, 2, 3, 4), "OutSize": np.array([4, 3], dtype=np.int32)},
        _nearest_ref(4, 3),
        attrs={"scale": 3.0},
        grad=("X",),
        name="nearest_interp_outsize_over_scale",
    ),
    # Fluid 1.8's v1 ops take SizeTensor (one int tensor per dim, first) and a Scale tensor too
    # (test_nearest_interp_op's _attr_tensor cases); the v1 ratio stays in / out
    OpCase(
        "nearest_interp",
        {"X": r(1, 2, 3, 4), "SizeTensor": [np.array([5], np.int32), np.array([2], np.int32)]},
        _nearest_ref(5, 2),
        attrs={"out_h": 9, "out_w": 9},
        grad=("X",),
        name="nearest_interp_size_tensor",
    ),
    OpCase(
        "bilinear_interp",
        {"X": r(1, 2, 3, 4), "Scale": np.array([2.0], np.float32)},
        _bilinear_ref(6, 8),
        attrs={"scale": 0.5},
        grad=("X",),
        name="bilinear_interp_scale_tensor",
    ),
    OpCase(
        "bilinear_interp",
        {"X": r(1, 1, 3, 2), "SizeTensor": [np.array([2], np.int32), np.array([4], np.int32)]},
        _bilinear_ref(2, 4),
        grad=("X",),
        name="bilinear_interp_size_tensor",
    ),
    OpCase(
        "nearest_interp",
        {"X": r(1, 1, 2, 3), "Scale": np.array([2.0], np.float32)},
        _nearest_ref(4, 6),
        grad=("X",),
        name="nearest_interp_scale_tensor",
    ),
    OpCase("bilinear_interp", {"X": r(2, 2, 4, 5)}, _bilinear_ref(6, 3), attrs={"out_h": 6, "out_w": 3}, grad=("X",)),
    OpCase(
        "bilinear_interp",
        {"X": r(1, 3, 5, 4)},
        _bilinear_ref(3, 7, corners=False, mode=0),
        attrs={"out_h": 3, "out_w": 7, "align_corners": False, "align_mode": 0},
        grad=("X",),
        name="bilinear_interp_half_pixel",
    ),
    OpCase(
        "bilinear_interp",
        {"X": r(1, 2, 3, 3)},
        _bilinear_ref(6, 5, corners=False, mode=1),
        attrs={"out_h": 6, "out_w": 5, "align_corners": False},
        grad=("X",),
        name="bilinear_interp_mode1",
    ),
    OpCase(
        "bilinear_interp",
        {"X": r(2, 3, 4, 2), "OutSize": np.array([5, 7], dtype=np.int32)},
        _bilinear_ref(5, 7, nhwc=True),
        attrs={"out_h": 2, "out_w": 2, "data_layout": "NHWC"},
        grad=("X",),
        name="bilinear_interp_outsize_nhwc",
    ),
]


def _trilinear_ref(out_dhw, corners=True, mode=1, ndhwc=False, scales=(0.0, 0.0, 0.0)):
    def ref(i, a):
        x = i["X"].transpose(0, 4, 1, 2, 3) if ndhwc else i["X"]
        n, c = x.shape[:2]
        half = mode == 0 and not corners
        taps = [
            [
                _source(_ratio(x.shape[2 + k], out_dhw[k], corners, scales[k]), p, x.shape[2 + k], half)
                for p in range(out_dhw[k])
            ]
            for k in range(3)
        ]
        out = np.zeros((n, c) + tuple(out_dhw))
        for z, (z0, z1, dz) in enumerate(taps[0]):
            for y, (y0, y1, dy) in enumerate(taps[1]):
                for w, (w0, w1, dw) in enumerate(taps[2]):
                    acc = 0
                    for zi, fz in ((z0, 1 - dz), (z1, dz)):
                        for yi, fy in ((y0, 1 - dy), (y1, dy)):
                            for wi, fw in ((w0, 1 - dw), (w1, dw)):
                                acc = acc + x[:, :, zi, yi, wi] * fz * fy * fw
                    out[:, :, z, y, w] = acc
        return {"Out": out.transpose(0, 2, 3, 4, 1) if ndhwc else out}

    return ref


CASES += [
    OpCase(
        "trilinear_interp",
        {"X": r(1, 2, 3, 4, 2)},
        _trilinear_ref((4, 3, 5)),
        attrs={"out_d": 4, "out_h": 3, "out_w": 5},
        grad=("X",),
    ),
    OpCase(
        "trilinear_interp",
        {"X": r(2, 2, 3, 2, 3)},
        _trilinear_ref((3, 4, 2), corners=False, mode=0, ndhwc=True),
        attrs={"out_d": 3, "out_h": 4, "out_w": 2, "align_corners": False, "align_mode": 0, "data_layout": "NHWC"},
        grad=("X",),
        name="trilinear_interp_half_pixel_ndhwc",
    ),
    OpCase(
        "trilinear_interp",
        {"X": r(1, 1, 2, 3, 2), "OutSize": np.array([3, 3, 3], dtype=np.int32)},
        _trilinear_ref((3, 3, 3), corners=False),
        attrs={"align_corners": False},
        grad=("X",),
        name="trilinear_interp_outsize",
    ),
    # SizeTensor over a Scale tensor (Fluid 1.8's order), the v1 ratio in / out
    OpCase(
        "trilinear_interp",
        {
            "X": r(1, 1, 2, 3, 2),
            "SizeTensor": [np.array([v], np.int32) for v in (3, 2, 3)],
            "Scale": np.array([5.0], np.float32),
        },
        _trilinear_ref((3, 2, 3)),
        grad=("X",),
        name="trilinear_interp_size_tensor_over_scale",
    ),
]

_V2 = {"align_corners": False, "align_mode": 0}  # paddle.nn.functional.interpolate's defaults
CASES += [
    OpCase(
        "bilinear_interp_v2",
        {"X": r(1, 2, 4, 3)},
        _bilinear_ref(6, 7, corners=False, mode=0, scales=(1.5, 2.5)),
        attrs={**_V2, "scale": [1.5, 2.5]},
        grad=("X",),
        name="bilinear_interp_v2_scale_list",
    ),
    OpCase(
        "bilinear_interp_v2",
        {"X": r(2, 3, 3, 2)},
        _bilinear_ref(5, 6, corners=True, nhwc=True),
        attrs={"scale": [1.7, 2.0], "align_corners": True, "data_layout": "NHWC"},
        grad=("X",),
        name="bilinear_interp_v2_corners_nhwc",
    ),
    OpCase(
        "bilinear_interp_v2",
        {"X": r(1, 2, 3, 4), "SizeTensor": [np.array([5], np.int32), np.array([2], np.int32)]},
        _bilinear_ref(5, 2, corners=False, mode=0),
        attrs={**_V2, "scale": [3.0, 3.0]},
        grad=("X",),
        name="bilinear_interp_v2_size_tensor_first",
    ),
    # OutSize sets the size but the source ratio stays 1 / scale, as Paddle 2.x's kernel has it
    OpCase(
        "bilinear_interp_v2",
        {"X": r(1, 1, 4, 4), "OutSize": np.array([6, 5], np.int32)},
        _bilinear_ref(6, 5, corners=False, mode=1, scales=(2.0, 2.0)),
        attrs={"align_corners": False, "scale": [2.0, 2.0]},
        grad=("X",),
        name="bilinear_interp_v2_outsize_keeps_scale_ratio",
    ),
    OpCase(
        "nearest_interp_v2",
        {"X": r(1, 2, 3, 4), "Scale": np.array([1.7], np.float32)},
        _nearest_ref(5, 6, corners=False, scales=(F(1.7), F(1.7))),
        attrs={**_V2, "out_h": 2, "out_w": 2},
        grad=("X",),
        name="nearest_interp_v2_scale_tensor",
    ),
    OpCase(
        "nearest_interp_v2",
        {"X": r(2, 2, 3, 3)},
        _nearest_ref(4, 2, corners=False),
        attrs={"out_h": 4, "out_w": 2, "align_corners": False},
        grad=("X",),
        name="nearest_interp_v2_out_hw",
    ),
    OpCase(
        "trilinear_interp_v2",
        {"X": r(1, 2, 2, 3, 2)},
        _trilinear_ref((4, 4, 2), corners=False, mode=0, scales=(2.0, 1.5, 1.0)),
        attrs={**_V2, "scale": [2.0, 1.5, 1.0]},
        grad=("X",),
        name="trilinear_interp_v2_scale_list",
    ),
]

_I32 = np.int32
CASES += [  # each optional input of each v2 op (test_grad_reads checks what the gradient reads)
    OpCase(
        "bilinear_interp_v2",
        {"X": r(1, 2, 3, 3), "Scale": np.array([2.0, 1.5], np.float32)},
        _bilinear_ref(6, 4, corners=False, mode=0, scales=(2.0, 1.5)),
        attrs=dict(_V2),
        grad=("X",),
        name="bilinear_interp_v2_scale_tensor",
    ),
    OpCase(
        "nearest_interp_v2",
        {"X": r(1, 2, 3, 4), "OutSize": np.array([3, 5], _I32)},
        _nearest_ref(3, 5, corners=False, scales=(2.0, 2.0)),
        attrs={**_V2, "scale": [2.0, 2.0]},
        grad=("X",),
        name="nearest_interp_v2_outsize_keeps_scale_ratio",
    ),
    OpCase(
        "nearest_interp_v2",
        {"X": r(1, 1, 4, 3), "SizeTensor": [np.array([2], _I32), np.array([5], _I32)]},
        _nearest_ref(2, 5, corners=True),
        attrs={"scale": [3.0, 3.0]},
        grad=("X",),
        name="nearest_interp_v2_size_tensor",
    ),
    OpCase(
        "trilinear_interp_v2",
        {"X": r(1, 1, 2, 2, 3), "OutSize": np.array([3, 3, 4], _I32)},
        _trilinear_ref((3, 3, 4), corners=True),
        attrs={"scale": []},
        grad=("X",),
        name="trilinear_interp_v2_outsize",
    ),
    OpCase(
        "trilinear_interp_v2",
        {"X": r(1, 1, 2, 3, 2), "SizeTensor": [np.array([3], _I32), np.array([2], _I32), np.array([4], _I32)]},
        _trilinear_ref((3, 2, 4), corners=False, mode=0),
        attrs=dict(_V2),
        grad=("X",),
        name="trilinear_interp_v2_size_tensor",
    ),
    OpCase(
        "trilinear_interp_v2",
        {"X": r(1, 1, 2, 2, 2), "Scale": np.array([1.5], np.float32)},
        _trilinear_ref((3, 3, 3), corners=False, mode=0, scales=(1.5, 1.5, 1.5)),
        attrs=dict(_V2),
        grad=("X",),
        name="trilinear_interp_v2_scale_tensor",
    ),
]

# a resize of a uint8 image is interpolated in float and truncated, as Fluid's kernels do (issue 53)
_u8 = np.array([[[[0, 255], [101, 3]]]], dtype=np.uint8)


def _bilinear_u8(i, a):
    """align_corners: the output row/column k takes k * (n_in - 1) / (n_out - 1); the weighted sum is
    truncated to uint8 (127.5 -> 127)."""
    w = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    return {"Out": (w @ i["X"][0, 0].astype(np.float64) @ w.T)[None, None].astype(np.uint8)}


CASES.append(
    OpCase(
        "bilinear_interp",
        {"X": _u8},
        _bilinear_u8,
        attrs={"out_h": 3, "out_w": 3, "interp_method": "bilinear", "align_corners": True, "align_mode": 1},
        atol=0,
        name="bilinear_interp_uint8_truncates",
    )
)

# Fluid's layers name the method on every resize op: the ops' own default, as Fluid's, is bilinear
for _case in CASES:
    _case.attrs.setdefault("interp_method", _case.op.split("_")[0])

# the method is interp_method's, whichever resize op carries it (Fluid's one kernel for all of them)
CASES.append(
    OpCase(
        "nearest_interp",
        {"X": r(1, 1, 3, 3)},
        _bilinear_ref(5, 4),
        attrs={"out_h": 5, "out_w": 4, "interp_method": "bilinear"},
        name="nearest_interp_op_bilinear_method",
    )
)
