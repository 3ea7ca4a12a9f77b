"""Op cases for the text-matching ops (ops/text_matching.py): loops over pairs, rows, channels and
kernel taps in plain numpy; gradients by finite differences."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(53)


def _lod(values, lengths):
    t = LoDTensor(np.asarray(values, dtype=np.float64))
    t.set_recursive_sequence_lengths([lengths])
    return t


def _starts(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(int)


# match_matrix_tensor: pairs of (1, 3), (2, 1) rows, h = 3, dim_t = 2
_MX, _MY = _lod(rng.normal(size=(3, 3)), [1, 2]), _lod(rng.normal(size=(4, 3)), [3, 1])
_MW = rng.normal(size=(3, 2, 3))


def _match_ref(i, a):
    x, y, w = np.asarray(i["X"]), np.asarray(i["Y"]), i["W"]
    xs, ys = _starts([1, 2]), _starts([3, 1])
    out = []
    for b in range(2):
        for t in range(2):
            for r in range(xs[b], xs[b + 1]):
                for c in range(ys[b], ys[b + 1]):
                    out.append(x[r] @ w[:, t, :] @ y[c])
    return {"Out": np.array(out).reshape(-1, 1), "Tmp": np.einsum("ih,htk->itk", x, w).reshape(-1, 1)}


# var_conv_2d: 2 input channels, pairs of 2x3 and 3x2 images, a 2x3 kernel, strides (1, 2)
_ROWS, _COLS, _CIN, _COUT, _KH, _KW, _SH, _SW = [2, 3], [3, 2], 2, 2, 2, 3, 1, 2
_VX = _lod(rng.normal(size=(_CIN * 12, 1)), [_CIN * 6, _CIN * 6])
_VW = rng.normal(size=(_COUT, _CIN * _KH * _KW))
_CONV_ATTRS = {
    "InputChannel": _CIN,
    "OutputChannel": _COUT,
    "StrideH": _SH,
    "StrideW": _SW,
    "KernelH": _KH,
    "KernelW": _KW,
}


def _var_conv_ref(i, a):
    x, w = np.asarray(i["X"]).ravel(), i["W"].reshape(_COUT, _CIN, _KH, _KW)
    outs, start = [], 0
    for h, wd in zip(_ROWS, _COLS):
        img = x[start : start + _CIN * h * wd].reshape(_CIN, h, wd)
        start += _CIN * h * wd
        oh, ow = (h - 1) // _SH + 1, (wd - 1) // _SW + 1
        out = np.zeros((_COUT, oh, ow))
        for o in range(_COUT):
            for yo in range(oh):
                for xo in range(ow):
                    for ky in range(_KH):
                        for kx in range(_KW):
                            iy, ix = yo * _SH + ky - _KH // 2, xo * _SW + kx - _KW // 2
                            if 0 <= iy < h and 0 <= ix < wd:
                                out[o, yo, xo] += w[o, :, ky, kx] @ img[:, iy, ix]
        outs.append(out.ravel())
    return {"Out": np.concatenate(outs).reshape(-1, 1)}


# sequence_topk_avg_pooling: 2 channels, pairs of 2x3 and 1x2 blocks, topks [1, 3]
_TROWS, _TCOLS, _TCH, _TOPKS = [2, 1], [3, 2], 2, [1, 3]
_TX = _lod(rng.permutation(16).astype(np.float64).reshape(-1, 1) / 7, [_TCH * 6, _TCH * 2])  # no ties


def _topk_ref(i, a):
    x, out, start = np.asarray(i["X"]).ravel(), [], 0
    for h, w in zip(_TROWS, _TCOLS):
        block = x[start : start + _TCH * h * w].reshape(_TCH, h, w)
        start += _TCH * h * w
        for r in range(h):
            row = []
            for c in range(_TCH):
                best = sorted(block[c, r], reverse=True)
                row += [sum(best[:k]) / k for k in _TOPKS]
            out.append(row)
    return {"Out": np.array(out)}


CASES = [
    OpCase(
        "match_matrix_tensor",
        {"X": _MX, "Y": _MY, "W": _MW},
        _match_ref,
        attrs={"dim_t": 2},
        grad=("X", "Y", "W"),
        loss_outputs=("Out",),
    ),
    OpCase(
        "var_conv_2d",
        {"X": _VX, "ROW": _lod(np.zeros((5, 1)), _ROWS), "COLUMN": _lod(np.zeros((5, 1)), _COLS), "W": _VW},
        _var_conv_ref,
        attrs=_CONV_ATTRS,
        grad=("X", "W"),
        outputs=("Out",),
    ),
    OpCase(
        "sequence_topk_avg_pooling",
        {"X": _TX, "ROW": _lod(np.zeros((3, 1)), _TROWS), "COLUMN": _lod(np.zeros((5, 1)), _TCOLS)},
        _topk_ref,
        attrs={"topks": _TOPKS, "channel_num": _TCH},
        grad=("X",),
        outputs=("Out",),
    ),
    # X flattened to [N] (test_sequence_topk_avg_pooling.py's), as Fluid takes it
    OpCase(
        "sequence_topk_avg_pooling",
        {
            "X": _lod(np.asarray(_TX).ravel(), [_TCH * 6, _TCH * 2]),
            "ROW": _lod(np.zeros((3, 1)), _TROWS),
            "COLUMN": _lod(np.zeros((5, 1)), _TCOLS),
        },
        _topk_ref,
        attrs={"topks": _TOPKS, "channel_num": _TCH},
        grad=("X",),
        outputs=("Out",),
        name="sequence_topk_avg_pooling_1d_x",
    ),
]
