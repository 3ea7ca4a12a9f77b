"""Op cases for conv2d and depthwise_conv2d (ops/convolution.py; conv2d_transpose's and deformable_conv's
are in cases_convolution_transpose.py and cases_convolution_deformable.py).

References are written independently of the kernels: explicit loops over every output element of
small shapes."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(1)


def r(*shape):
    return rng.normal(size=shape)


# -- conv2d: explicit loops ------------------------------------------------------------------------


def conv_ref(x, w, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), groups=1):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    t, b, left, right = pads
    xp = np.zeros((n, c, h + t + b, wd + left + right), dtype=x.dtype)
    xp[:, :, t : t + h, left : left + wd] = x
    ho = (h + t + b - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    wo = (wd + left + right - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, m, ho, wo), dtype=x.dtype)
    per_group = m // groups
    for ni in range(n):
        for mi in range(m):
            g = mi // per_group
            for oh in range(ho):
                for ow in range(wo):
                    acc = 0.0
                    for ci in range(cg):
                        for i in range(kh):
                            for j in range(kw):
                                acc += (
                                    xp[
                                        ni,
                                        g * cg + ci,
                                        oh * strides[0] + i * dilations[0],
                                        ow * strides[1] + j * dilations[1],
                                    ]
                                    * w[mi, ci, i, j]
                                )
                    out[ni, mi, oh, ow] = acc
    return out


def _away_from_0(x, gap=0.05):
    """``x`` moved at least ``gap`` away from relu's kink at 0 (for the finite differences)."""
    return np.where(np.abs(x) < gap, np.copysign(gap, x) + x, x)


def _conv_case(x, w, attrs=None, pads=(0, 0, 0, 0), name="", op="conv2d", grad=("Input", "Filter"), **kw):
    attrs = attrs or {}

    def ref(i, a):
        x = np.maximum(i["Input"], 0) if a["fuse_relu_before_depthwise_conv"] else i["Input"]  # Fluid's relu first
        return {"Output": conv_ref(x, i["Filter"], a["strides"], pads, a["dilations"], a["groups"])}

    return OpCase(op, {"Input": x, "Filter": w}, ref, attrs=attrs, grad=grad, name=name, **kw)


X32 = r(2, 3, 6, 6).astype(np.float32)
W32 = r(4, 3, 3, 3).astype(np.float32)


def _check_dtype32(outs, inputs):
    for slot, value in outs.items():
        assert value.dtype == np.float32, f"{slot} is {value.dtype}, expected float32"


CASES = [
    # conv2d
    _conv_case(r(2, 3, 5, 5), r(4, 3, 3, 3), name="conv2d_basic"),
    _conv_case(
        r(2, 3, 6, 6),
        r(4, 3, 3, 3),
        {"strides": [2, 2], "paddings": [1, 1]},
        pads=(1, 1, 1, 1),
        name="conv2d_stride2_pad1",
    ),
    _conv_case(
        r(1, 4, 7, 7),
        r(4, 2, 3, 3),
        {"dilations": [2, 2], "groups": 2, "paddings": [1, 2, 0, 1]},
        pads=(1, 2, 0, 1),
        name="conv2d_dilation_groups_asym_pad",
    ),
    _conv_case(
        r(1, 2, 5, 6),
        r(3, 2, 3, 2),
        {"strides": [2, 1], "padding_algorithm": "SAME"},
        pads=(1, 1, 0, 1),
        name="conv2d_same_padding",
    ),
    _conv_case(
        r(1, 2, 5, 5), r(3, 2, 3, 3), {"paddings": [2, 2], "padding_algorithm": "VALID"}, name="conv2d_valid_padding"
    ),
    _conv_case(
        r(2, 3, 5, 5),
        r(3, 1, 3, 3),
        {"groups": 3, "paddings": [1, 1]},
        pads=(1, 1, 1, 1),
        op="depthwise_conv2d",
        name="depthwise_conv2d",
    ),
    _conv_case(
        _away_from_0(r(2, 3, 5, 5)),
        r(6, 1, 3, 3),
        {"groups": 3, "paddings": [1, 1], "fuse_relu_before_depthwise_conv": True},
        pads=(1, 1, 1, 1),
        op="depthwise_conv2d",
        name="depthwise_conv2d_relu_first",
    ),
    _conv_case(r(2, 3, 5, 5), r(2, 3, 1, 1), name="conv2d_1x1_input_grad_only", grad=("Input",)),
    _conv_case(r(2, 3, 5, 5), r(2, 3, 2, 2), {"strides": [3, 3]}, name="conv2d_filter_grad_only", grad=("Filter",)),
    _conv_case(X32, W32, {"paddings": [1, 1]}, pads=(1, 1, 1, 1), name="conv2d_float32", grad=(), rtol=1e-5, atol=1e-5),
    # 3x3 stride 1 with >= 8 channels in and out: the CPU's Winograd path (kernels/cpu/_winograd.py)
    _conv_case(r(1, 8, 15, 16), r(8, 8, 3, 3), {"paddings": [0, 2, 1, 0]}, pads=(0, 2, 1, 0), name="conv2d_winograd"),
    OpCase(
        "conv2d", {"Input": X32, "Filter": W32}, outputs=("Output",), check=_check_dtype32, name="conv2d_float32_dtype"
    ),
]


# -- NHWC: the NCHW reference on the transposed input, its output transposed back -----------------


def _nhwc(case, slot_in, slot_out):
    """``case`` (inputs NCHW) as its NHWC twin: the image input transposed to channels last, the
    reference run on it transposed back, data_format NHWC."""

    def ref(i, a):
        first = dict(i, **{slot_in: np.transpose(i[slot_in], (0, 3, 1, 2))})
        return {
            k: np.transpose(v, (0, 2, 3, 1))
            for k, v in case.ref(first, dict(a, data_format="NCHW")).items()
            if k == slot_out
        }

    inputs = dict(case.inputs, **{slot_in: np.ascontiguousarray(np.transpose(case.inputs[slot_in], (0, 2, 3, 1)))})
    return OpCase(
        case.op, inputs, ref, attrs=dict(case.attrs, data_format="NHWC"), grad=case.grad, name=case.id + "_nhwc"
    )


CASES += [
    _nhwc(
        _conv_case(
            r(2, 3, 6, 5),
            r(4, 3, 3, 3),
            {"strides": [2, 1], "paddings": [1, 1]},
            pads=(1, 1, 1, 1),
            name="conv2d_stride_pad",
        ),
        "Input",
        "Output",
    ),
    _nhwc(
        _conv_case(
            r(1, 4, 5, 5),
            r(4, 2, 3, 3),
            {"dilations": [2, 2], "groups": 2, "paddings": [1, 2, 0, 1]},
            pads=(1, 2, 0, 1),
            name="conv2d_dilation_groups",
        ),
        "Input",
        "Output",
    ),
    _nhwc(
        _conv_case(
            r(2, 3, 5, 5),
            r(3, 1, 3, 3),
            {"groups": 3, "paddings": [1, 1]},
            pads=(1, 1, 1, 1),
            op="depthwise_conv2d",
            name="depthwise_conv2d",
        ),
        "Input",
        "Output",
    ),
]


def _conv_shift(i, a):
    """Fluid's loop: Out[k, i] += X[k, (i + j - h + M) % M] * Y[k, j]."""
    x, y = i["X"], i["Y"]
    (b, m), n = x.shape, y.shape[1]
    out = np.zeros_like(x)
    for k in range(b):
        for c in range(m):
            for j in range(n):
                out[k, c] += x[k, (c + j - (n - 1) // 2 + m) % m] * y[k, j]
    return {"Out": out}


CASES += [
    OpCase("conv_shift", {"X": rng.normal(size=(2, 5)), "Y": rng.normal(size=(2, 3))}, _conv_shift, grad=("X", "Y"))
]

# Bias and ResidualData feed Fluid's oneDNN kernel only: its plain CPU kernel, as pe's, convolves without them
CASES.append(
    OpCase(
        "conv2d",
        {"Input": r(1, 2, 4, 4), "Filter": r(3, 2, 3, 3), "Bias": r(3), "ResidualData": r(1, 3, 2, 2)},
        lambda i, a: {"Output": conv_ref(i["Input"], i["Filter"])},
        attrs={"fuse_residual_connection": True, "fuse_activation": "relu"},
        name="conv2d_bias_unread",
    )
)
