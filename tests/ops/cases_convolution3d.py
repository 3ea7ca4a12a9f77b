"""Op cases for ops/convolution3d.py: conv3d and conv3d_transpose with strides, paddings (3 and 6 of
them, SAME, VALID), dilations, groups, output_size and NDHWC, against direct loops over every output
(conv3d) or every input voxel (conv3d_transpose, as Fluid's test_conv3d_transpose_op.py reference)."""

import itertools

import numpy as np

from op_test import OpCase
from tests.ops.cases_convolution_geometry import conv_ref, conv_transpose_ref
from tests.ops.paddle26 import recorded_cases

rng = np.random.default_rng(303)


def r(*shape):
    return rng.normal(size=shape)


def _pads(a, x_dhw, k):
    p = list(a.get("paddings", [0, 0, 0]))
    algo, strides = a.get("padding_algorithm", "EXPLICIT"), a.get("strides", [1, 1, 1])
    if algo == "VALID":
        return [0] * 6, a.get("dilations", [1, 1, 1])
    if algo == "SAME":
        total = [max(((size + s - 1) // s - 1) * s + kk - size, 0) for size, s, kk in zip(x_dhw, strides, k)]
        return [v for t in total for v in (t // 2, t - t // 2)], [1, 1, 1]
    return (p if len(p) == 6 else [v for q in p for v in (q, q)]), a.get("dilations", [1, 1, 1])


def _conv3d_ref(i, a):
    x, w = i["Input"], i["Filter"]
    if a.get("data_format") == "NDHWC":
        x = x.transpose(0, 4, 1, 2, 3)
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    groups, strides = a.get("groups", 1), a.get("strides", [1, 1, 1])
    pads, dil = _pads(a, x.shape[2:], w.shape[2:])
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[2 * d], pads[2 * d + 1]) for d in range(3)])
    out = [(xp.shape[2 + d] - dil[d] * (w.shape[2 + d] - 1) - 1) // strides[d] + 1 for d in range(3)]
    y = np.zeros((n, m, *out))
    for b, mi, od, oh, ow in itertools.product(range(n), range(m), *(range(o) for o in out)):
        g = mi // (m // groups)
        for ci, kd, kh, kw in itertools.product(range(cg), *(range(k) for k in w.shape[2:])):
            y[b, mi, od, oh, ow] += (
                xp[
                    b,
                    g * cg + ci,
                    od * strides[0] + kd * dil[0],
                    oh * strides[1] + kh * dil[1],
                    ow * strides[2] + kw * dil[2],
                ]
                * w[mi, ci, kd, kh, kw]
            )
    return {"Output": y.transpose(0, 2, 3, 4, 1) if a.get("data_format") == "NDHWC" else y}


def _conv3d_transpose_ref(i, a):
    x, w = i["Input"], i["Filter"]
    n, cin = x.shape[:2]
    cout_g, groups, strides = w.shape[1], a.get("groups", 1), a.get("strides", [1, 1, 1])
    pads, dil = _pads(a, x.shape[2:], w.shape[2:])
    least = [
        (x.shape[2 + d] - 1) * strides[d] - pads[2 * d] - pads[2 * d + 1] + dil[d] * (w.shape[2 + d] - 1) + 1
        for d in range(3)
    ]
    out = a.get("output_size") or least
    full = np.zeros(
        (
            n,
            cout_g * groups,
            *[
                max(pads[2 * d] + out[d], (x.shape[2 + d] - 1) * strides[d] + dil[d] * (w.shape[2 + d] - 1) + 1)
                for d in range(3)
            ],
        )
    )
    for b, c, zd, zh, zw in itertools.product(range(n), range(cin), *(range(s) for s in x.shape[2:])):
        g = c // (cin // groups)
        for kd, kh, kw in itertools.product(*(range(k) for k in w.shape[2:])):
            full[
                b,
                g * cout_g : (g + 1) * cout_g,
                zd * strides[0] + kd * dil[0],
                zh * strides[1] + kh * dil[1],
                zw * strides[2] + kw * dil[2],
            ] += x[b, c, zd, zh, zw] * w[c, :, kd, kh, kw]
    return {"Output": full[:, :, pads[0] : pads[0] + out[0], pads[2] : pads[2] + out[1], pads[4] : pads[4] + out[2]]}


_G = ("Input", "Filter")
CASES = [
    OpCase("conv3d", {"Input": r(2, 2, 3, 4, 3), "Filter": r(3, 2, 2, 2, 2)}, _conv3d_ref, grad=_G),
    OpCase(
        "conv3d",
        {"Input": r(1, 4, 5, 4, 4), "Filter": r(4, 2, 3, 2, 3)},
        _conv3d_ref,
        grad=_G,
        attrs={"strides": [2, 1, 2], "paddings": [1, 0, 1, 1, 0, 2], "dilations": [1, 2, 1], "groups": 2},
        name="conv3d_strides_pads6_dilation_groups",
    ),
    OpCase(
        "conv3d",
        {"Input": r(1, 2, 5, 4, 3), "Filter": r(2, 2, 3, 3, 2)},
        _conv3d_ref,
        grad=_G,
        attrs={"strides": [2, 2, 1], "padding_algorithm": "SAME"},
        name="conv3d_same",
    ),
    OpCase(
        "conv3d",
        {"Input": r(1, 3, 4, 3, 2), "Filter": r(2, 2, 2, 2, 1)},
        _conv3d_ref,
        grad=_G,
        attrs={"paddings": [1, 1, 1], "padding_algorithm": "VALID", "data_format": "NDHWC"},
        name="conv3d_valid_ndhwc",
    ),
    OpCase("conv3d_transpose", {"Input": r(2, 2, 2, 3, 2), "Filter": r(2, 3, 2, 2, 2)}, _conv3d_transpose_ref, grad=_G),
    OpCase(
        "conv3d_transpose",
        {"Input": r(1, 4, 2, 2, 3), "Filter": r(4, 1, 3, 2, 2)},
        _conv3d_transpose_ref,
        attrs={
            "strides": [2, 1, 2],
            "paddings": [1, 0, 1],
            "dilations": [1, 2, 1],
            "groups": 2,
            "output_size": [4, 4, 5],
        },
        grad=_G,
        name="conv3d_transpose_strides_groups_output_size",
    ),
]


# the geometry Fluid 1.8.5's vol2col / col2vol run unchecked (negative paddings, dilations of 0 or below, a
# longer dilation list), against references that read as they do (cases_convolution_geometry.py)
_A3 = {"strides": [1, 1, 1], "groups": 1, "paddings": [0, 0, 0], "dilations": [1, 1, 1]}
_geo_rng = np.random.default_rng(7678)
CASES += [
    OpCase(
        "conv3d",
        {"Input": _geo_rng.normal(size=(2, 2, 3, 4, 3)), "Filter": _geo_rng.normal(size=(3, 2, 2, 2, 2))},
        conv_ref,
        grad=_G,
        attrs=dict(_A3, paddings=[-1, 1, 0, 2, 1, -1], dilations=[0, -1, 1, 1]),
        name="conv3d_any_geometry",
    ),
    OpCase(
        "conv3d_transpose",
        {"Input": _geo_rng.normal(size=(2, 2, 2, 3, 2)), "Filter": _geo_rng.normal(size=(2, 3, 2, 2, 2))},
        conv_transpose_ref,
        grad=_G,
        attrs=dict(_A3, paddings=[-1, -1, 0], dilations=[0, -1, 2]),
        name="conv3d_transpose_any_geometry",
    ),
]
CASES += recorded_cases("convolution3d")  # recorded from Paddle 2.6.2 (conv3d_transpose given NHWC)
