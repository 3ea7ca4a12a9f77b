"""Op cases for bicubic_interp and bicubic_interp_v2 (ops/image.py). The reference is a loop over the
output pixels as in Fluid 1.8's test_bicubic_interp_op.py: four rows of four taps around each source
(ratio * k with align_corners, else ratio * (k + 0.5) - 0.5), cubic convolution weights with A = -0.75,
the taps clamped to the image; ratios in float32 as Fluid's kernel."""

import math

import numpy as np

from op_test import OpCase

from .cases_image_resize import F, _ratio, r

A = -0.75


def _coefficients(t):
    near = lambda x: ((A + 2) * x - (A + 3)) * x * x + 1  # noqa: E731
    far = lambda x: ((A * x - 5 * A) * x + 8 * A) * x - 4 * A  # noqa: E731
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _source(ratio, k, corners):
    s = ratio * F(k) if corners else ratio * (F(k) + F(0.5)) - F(0.5)
    base = math.floor(s)
    return base, float(s) - base


def _bicubic_ref(out_h, out_w, corners=True, nhwc=False, scales=(0.0, 0.0)):
    def ref(i, a):
        x = i["X"].transpose(0, 3, 1, 2) if nhwc else i["X"]
        n, c, h, w = x.shape
        rh, rw = _ratio(h, out_h, corners, scales[0]), _ratio(w, out_w, corners, scales[1])
        if (h, w) == (out_h, out_w) and not scales[0] > 0:
            return {"Out": i["X"]}
        out = np.zeros((n, c, out_h, out_w))
        for k in range(out_h):
            iy, ty = _source(rh, k, corners)
            for m in range(out_w):
                ix, tx = _source(rw, m, corners)
                rows = [
                    sum(
                        x[:, :, min(max(iy - 1 + u, 0), h - 1), min(max(ix - 1 + v, 0), w - 1)] * cx
                        for v, cx in enumerate(_coefficients(tx))
                    )
                    for u in range(4)
                ]
                out[:, :, k, m] = sum(row * cy for row, cy in zip(rows, _coefficients(ty)))
        return {"Out": out.transpose(0, 2, 3, 1) if nhwc else out}

    return ref


_V2 = {"align_corners": False, "align_mode": 0}
_I32 = np.int32
CASES = [
    OpCase("bicubic_interp", {"X": r(2, 2, 4, 5)}, _bicubic_ref(6, 3), attrs={"out_h": 6, "out_w": 3}, grad=("X",)),
    OpCase(
        "bicubic_interp",
        {"X": r(1, 2, 3, 4)},
        _bicubic_ref(7, 5, corners=False, nhwc=True),
        attrs={"out_h": 7, "out_w": 5, "align_corners": False, "data_layout": "NHWC"},
        grad=("X",),
        name="bicubic_interp_half_pixel_nhwc",
    ),
    OpCase(
        "bicubic_interp",
        {"X": r(1, 1, 3, 3), "OutSize": np.array([5, 2], _I32)},
        _bicubic_ref(5, 2),
        grad=("X",),
        name="bicubic_interp_outsize",
    ),
    OpCase(
        "bicubic_interp",
        {
            "X": r(1, 1, 3, 3),
            "SizeTensor": [np.array([4], _I32), np.array([2], _I32)],
            "Scale": np.array([3.0], np.float32),
        },
        _bicubic_ref(4, 2),
        grad=("X",),
        name="bicubic_interp_size_tensor_over_scale",
    ),
    OpCase(
        "bicubic_interp_v2",
        {"X": r(1, 2, 3, 4)},
        _bicubic_ref(6, 6, corners=False, scales=(2.0, 1.5)),
        attrs={**_V2, "scale": [2.0, 1.5]},
        grad=("X",),
        name="bicubic_interp_v2_scale_list",
    ),
    OpCase(
        "bicubic_interp_v2",
        {"X": r(1, 1, 3, 3), "Scale": np.array([1.5], np.float32)},
        _bicubic_ref(4, 4, corners=False, scales=(1.5, 1.5)),
        attrs=dict(_V2),
        grad=("X",),
        name="bicubic_interp_v2_scale_tensor",
    ),
    OpCase(
        "bicubic_interp_v2",
        {"X": r(1, 1, 3, 4), "OutSize": np.array([4, 5], _I32)},
        _bicubic_ref(4, 5, corners=True),
        attrs={"scale": []},
        grad=("X",),
        name="bicubic_interp_v2_outsize",
    ),
    OpCase(
        "bicubic_interp_v2",
        {"X": r(1, 1, 2, 3), "SizeTensor": [np.array([4], _I32), np.array([2], _I32)]},
        _bicubic_ref(4, 2, corners=False),
        attrs=dict(_V2),
        grad=("X",),
        name="bicubic_interp_v2_size_tensor",
    ),
]

# Fluid's layers name the method on every resize op: the ops' own default, as Fluid's, is bilinear
for _case in CASES:
    _case.attrs.setdefault("interp_method", _case.op.split("_")[0])
