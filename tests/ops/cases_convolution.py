"""Op cases for the nn ops: conv2d, pool2d, batch_norm, layer_norm, dropout, lookup_table.

References are written independently of the kernels: convolution and pooling as explicit loops
over every output element of small shapes, normalization straight from its definition."""
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
    xp[:, :, t:t + h, left:left + wd] = x
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
                                acc += xp[ni, g * cg + ci, oh * strides[0] + i * dilations[0],
                                          ow * strides[1] + j * dilations[1]] * w[mi, ci, i, j]
                    out[ni, mi, oh, ow] = acc
    return out


def _away_from_0(x, gap=0.05):
    """``x`` moved at least ``gap`` away from relu's kink at 0 (for the finite differences)."""
    return np.where(np.abs(x) < gap, np.copysign(gap, x) + x, x)


def _conv_case(x, w, attrs=None, pads=(0, 0, 0, 0), name="", op="conv2d", grad=("Input", "Filter"), **kw):
    attrs = attrs or {}

    def ref(i, a):
        x = np.maximum(i["Input"], 0) if a["fuse_relu_before_depthwise_conv"] else i["Input"]   # Fluid's relu first
        return {"Output": conv_ref(x, i["Filter"], a["strides"], pads, a["dilations"], a["groups"])}
    return OpCase(op, {"Input": x, "Filter": w}, ref, attrs=attrs, grad=grad, name=name, **kw)


# -- pool2d: explicit loops with Fluid's window rule (hstart clipped at 0, hend at H) --------------

def pool_ref(x, ksize, strides, pads, pool_type, exclusive=True, ceil_mode=False, global_pooling=False):
    n, c, h, w = x.shape
    if global_pooling:
        ksize, strides, pads = (h, w), (1, 1), (0, 0, 0, 0)
    t, b, left, right = pads

    def out_len(size, k, p0, p1, s):
        return (size + p0 + p1 - k + (s - 1 if ceil_mode else 0)) // s + 1
    ho, wo = out_len(h, ksize[0], t, b, strides[0]), out_len(w, ksize[1], left, right, strides[1])
    out = np.zeros((n, c, ho, wo), dtype=x.dtype)
    for oh in range(ho):
        hs = oh * strides[0] - t
        he, hs = min(hs + ksize[0], h), max(hs, 0)
        for ow in range(wo):
            ws = ow * strides[1] - left
            we, ws = min(ws + ksize[1], w), max(ws, 0)
            for ni in range(n):
                for ci in range(c):
                    win = x[ni, ci, hs:he, ws:we]
                    if pool_type == "max":
                        out[ni, ci, oh, ow] = win.max()
                    else:
                        count = win.size if exclusive else ksize[0] * ksize[1]
                        out[ni, ci, oh, ow] = win.sum() / count
    return out


def _pool_case(x, attrs, pads=(0, 0, 0, 0), name="", **kw):
    def ref(i, a):
        return {"Out": pool_ref(i["X"], a["ksize"], a["strides"], pads, a["pooling_type"], a["exclusive"],
                                a["ceil_mode"], a["global_pooling"])}
    return OpCase("pool2d", {"X": x}, ref, attrs=attrs, grad=("X",), name=name, **kw)


# -- batch_norm / layer_norm: from the definitions -------------------------------------------------

def bn_ref(x, scale, bias, mean, var, momentum=0.9, epsilon=1e-5, is_test=False, use_global_stats=False,
           layout="NCHW"):
    axis = x.ndim - 1 if layout == "NHWC" else 1
    moved = np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
    bshape = [1] * x.ndim
    bshape[axis] = -1
    if is_test or use_global_stats:
        m, v = mean, var
        mean_out, var_out = mean, var
    else:
        m = moved.mean(axis=1)
        v = ((moved - m[:, None]) ** 2).mean(axis=1)
        mean_out = momentum * mean + (1 - momentum) * m
        var_out = momentum * var + (1 - momentum) * v
    y = (x - m.reshape(bshape)) / np.sqrt(v.reshape(bshape) + epsilon) * scale.reshape(bshape) + bias.reshape(bshape)
    return {"Y": y, "MeanOut": mean_out, "VarianceOut": var_out, "SavedMean": m,
            "SavedVariance": 1 / np.sqrt(v + epsilon)}


def _bn_case(x, channels, attrs=None, name="", **kw):
    inputs = {"X": x, "Scale": rng.uniform(0.5, 1.5, channels), "Bias": r(channels),
              "Mean": r(channels) * 0.1, "Variance": rng.uniform(0.5, 1.5, channels)}
    attrs = attrs or {}

    def ref(i, a):
        return bn_ref(i["X"], i["Scale"], i["Bias"], i["Mean"], i["Variance"], a["momentum"], a["epsilon"],
                      a["is_test"], a["use_global_stats"], a["data_layout"])
    return OpCase("batch_norm", inputs, ref, attrs=attrs, grad=("X", "Scale", "Bias"), loss_outputs=("Y",),
                  name=name, grad_rtol=1e-4, grad_atol=1e-6, **kw)


def ln_ref(x, scale=None, bias=None, begin=1, epsilon=1e-5):
    left = int(np.prod(x.shape[:begin]))
    x2 = x.reshape(left, -1)
    mean = x2.mean(axis=1)
    var = ((x2 - mean[:, None]) ** 2).mean(axis=1)
    y = (x2 - mean[:, None]) / np.sqrt(var[:, None] + epsilon)
    if scale is not None:
        y = y * scale
    if bias is not None:
        y = y + bias
    return {"Y": y.reshape(x.shape), "Mean": mean, "Variance": var}


# -- dropout: random, so checked by properties -----------------------------------------------------

def _dropout_check(p, upscale=False, ratio=True):
    def check(outs, inputs):
        x, out, mask = inputs["X"], outs["Out"], outs["Mask"]
        assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 1}
        scale = 1.0 / (1.0 - p) if upscale and p < 1 else 1.0
        np.testing.assert_allclose(out, x * mask * scale, rtol=1e-6)
        kept = mask.mean()
        assert not ratio or abs(kept - (1 - p)) < 0.05, f"kept {kept:.3f} of the elements, expected about {1 - p}"
    return check


X_BIG = r(60, 50)
X32 = r(2, 3, 6, 6).astype(np.float32)
W32 = r(4, 3, 3, 3).astype(np.float32)


def _check_dtype32(outs, inputs):
    for slot, value in outs.items():
        assert value.dtype == np.float32, f"{slot} is {value.dtype}, expected float32"


CASES = [
    # conv2d
    _conv_case(r(2, 3, 5, 5), r(4, 3, 3, 3), name="conv2d_basic"),
    _conv_case(r(2, 3, 6, 6), r(4, 3, 3, 3), {"strides": [2, 2], "paddings": [1, 1]}, pads=(1, 1, 1, 1),
               name="conv2d_stride2_pad1"),
    _conv_case(r(1, 4, 7, 7), r(4, 2, 3, 3), {"dilations": [2, 2], "groups": 2, "paddings": [1, 2, 0, 1]},
               pads=(1, 2, 0, 1), name="conv2d_dilation_groups_asym_pad"),
    _conv_case(r(1, 2, 5, 6), r(3, 2, 3, 2), {"strides": [2, 1], "padding_algorithm": "SAME"},
               pads=(1, 1, 0, 1), name="conv2d_same_padding"),
    _conv_case(r(1, 2, 5, 5), r(3, 2, 3, 3), {"paddings": [2, 2], "padding_algorithm": "VALID"},
               name="conv2d_valid_padding"),
    _conv_case(r(2, 3, 5, 5), r(3, 1, 3, 3), {"groups": 3, "paddings": [1, 1]}, pads=(1, 1, 1, 1),
               op="depthwise_conv2d", name="depthwise_conv2d"),
    _conv_case(_away_from_0(r(2, 3, 5, 5)), r(6, 1, 3, 3), {"groups": 3, "paddings": [1, 1],
                                                           "fuse_relu_before_depthwise_conv": True},
               pads=(1, 1, 1, 1), op="depthwise_conv2d", name="depthwise_conv2d_relu_first"),
    _conv_case(r(2, 3, 5, 5), r(2, 3, 1, 1), name="conv2d_1x1_input_grad_only", grad=("Input",)),
    _conv_case(r(2, 3, 5, 5), r(2, 3, 2, 2), {"strides": [3, 3]}, name="conv2d_filter_grad_only",
               grad=("Filter",)),
    _conv_case(X32, W32, {"paddings": [1, 1]}, pads=(1, 1, 1, 1), name="conv2d_float32", grad=(),
               rtol=1e-5, atol=1e-5),
    # 3x3 stride 1 with >= 8 channels in and out: the CPU's Winograd path (kernels/cpu/_winograd.py)
    _conv_case(r(1, 8, 15, 16), r(8, 8, 3, 3), {"paddings": [0, 2, 1, 0]}, pads=(0, 2, 1, 0), name="conv2d_winograd"),
    OpCase("conv2d", {"Input": X32, "Filter": W32}, outputs=("Output",), check=_check_dtype32,
           name="conv2d_float32_dtype"),

    # pool2d
    _pool_case(r(2, 3, 4, 4), {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]}, name="pool2d_max_2x2"),
    _pool_case(r(1, 2, 5, 5), {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
               pads=(1, 1, 1, 1), name="pool2d_max_3x3_pad"),
    _pool_case(r(1, 2, 5, 5), {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
               pads=(1, 1, 1, 1), name="pool2d_avg_exclusive"),
    _pool_case(r(1, 2, 5, 5), {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
                               "exclusive": False}, pads=(1, 1, 1, 1), name="pool2d_avg_inclusive"),
    _pool_case(r(1, 2, 5, 5), {"pooling_type": "avg", "ksize": [2, 2], "strides": [2, 2], "ceil_mode": True},
               name="pool2d_avg_ceil_mode"),
    _pool_case(r(1, 2, 5, 7), {"pooling_type": "max", "ksize": [2, 3], "strides": [2, 2], "ceil_mode": True},
               name="pool2d_max_ceil_mode"),
    _pool_case(r(1, 2, 4, 4), {"pooling_type": "max", "ksize": [3, 3], "strides": [1, 1]},
               name="pool2d_max_by_window"),
    _pool_case(r(1, 2, 5, 4), {"pooling_type": "avg", "ksize": [4, 3], "strides": [1, 1], "paddings": [1, 0]},
               pads=(1, 1, 0, 0), name="pool2d_avg_by_window"),
    _pool_case(r(2, 3, 4, 5), {"pooling_type": "max", "global_pooling": True, "ksize": [2, 2]},
               name="pool2d_global_max"),
    _pool_case(r(2, 3, 4, 5), {"pooling_type": "avg", "global_pooling": True}, name="pool2d_global_avg"),

    # batch_norm
    _bn_case(r(4, 3, 2, 2), 3, name="batch_norm_train_nchw"),
    _bn_case(r(6, 4), 4, {"momentum": 0.5, "epsilon": 1e-4}, name="batch_norm_train_2d"),
    _bn_case(r(3, 2, 2, 4), 4, {"data_layout": "NHWC"}, name="batch_norm_train_nhwc"),
    _bn_case(r(3, 3, 2, 2), 3, {"is_test": True}, name="batch_norm_is_test"),
    _bn_case(r(3, 3, 2, 2), 3, {"use_global_stats": True}, name="batch_norm_use_global_stats"),
    OpCase("batch_norm", {"X": r(4, 3, 2, 2), "Scale": r(3), "Bias": r(3), "Mean": r(3), "Variance": r(3) ** 2},
           ref=lambda i, a: {"Y": bn_ref(i["X"], i["Scale"], i["Bias"], i["Mean"], i["Variance"])["Y"]},
           outputs=("Y", "SavedMean", "SavedVariance"), loss_outputs=("Y",),
           grad=("Scale", "Bias"), name="batch_norm_param_grads_only", grad_rtol=1e-4),

    # layer_norm
    OpCase("layer_norm", {"X": r(2, 3, 4), "Scale": rng.uniform(0.5, 1.5, 12), "Bias": r(12)},
           lambda i, a: ln_ref(i["X"], i["Scale"], i["Bias"], 1), grad=("X", "Scale", "Bias"),
           loss_outputs=("Y",), name="layer_norm_axis1", grad_rtol=1e-4),
    OpCase("layer_norm", {"X": r(2, 3, 5), "Scale": rng.uniform(0.5, 1.5, 5), "Bias": r(5)},
           lambda i, a: ln_ref(i["X"], i["Scale"], i["Bias"], 2, 1e-4), attrs={"begin_norm_axis": 2, "epsilon": 1e-4},
           grad=("X", "Scale", "Bias"), loss_outputs=("Y",), name="layer_norm_axis2", grad_rtol=1e-4),
    OpCase("layer_norm", {"X": r(3, 6)}, lambda i, a: ln_ref(i["X"]), grad=("X",), loss_outputs=("Y",),
           name="layer_norm_no_scale_bias", grad_rtol=1e-4),

    # dropout
    OpCase("dropout", {"X": X_BIG}, outputs=("Out", "Mask"), check=_dropout_check(0.3),
           attrs={"dropout_prob": 0.3}, name="dropout_train"),
    OpCase("dropout", {"X": X_BIG}, outputs=("Out", "Mask"), check=_dropout_check(0.4, upscale=True),
           attrs={"dropout_prob": 0.4, "dropout_implementation": "upscale_in_train"}, name="dropout_upscale"),
    OpCase("dropout", {"X": r(3, 4)}, outputs=("Out", "Mask"), check=_dropout_check(0.0),
           attrs={"dropout_prob": 0.0}, name="dropout_p0"),
    OpCase("dropout", {"X": r(3, 4)}, lambda i, a: {"Out": np.zeros((3, 4))}, attrs={"dropout_prob": 1.0},
           name="dropout_p1"),
    OpCase("dropout", {"X": r(3, 4)}, lambda i, a: {"Out": i["X"] * 0.75}, attrs={"dropout_prob": 0.25,
           "is_test": True}, grad=("X",), name="dropout_is_test_downgrade"),
    OpCase("dropout", {"X": r(3, 4)}, lambda i, a: {"Out": i["X"]}, grad=("X",), name="dropout_is_test_upscale",
           attrs={"dropout_prob": 0.25, "is_test": True, "dropout_implementation": "upscale_in_train"}),
    OpCase("dropout", {"X": r(5, 6)}, outputs=("Out", "Mask"), check=_dropout_check(0.5, True, ratio=False),
           attrs={"dropout_prob": 0.5, "fix_seed": True, "seed": 11, "dropout_implementation": "upscale_in_train"},
           grad=("X",), name="dropout_fix_seed_grad"),

    # lookup_table
    OpCase("lookup_table", {"W": r(6, 4), "Ids": np.array([[1], [3], [1], [5], [0]], dtype=np.int64)},
           lambda i, a: {"Out": i["W"][i["Ids"][:, 0]]}, grad=("W",), name="lookup_table"),
    OpCase("lookup_table", {"W": r(6, 3), "Ids": np.array([[2], [4], [2], [0]], dtype=np.int64)},
           lambda i, a: {"Out": np.where(i["Ids"] == 2, 0, i["W"][i["Ids"][:, 0]])}, attrs={"padding_idx": 2},
           grad=("W",), name="lookup_table_padding_idx"),
    OpCase("lookup_table", {"W": r(5, 3), "Ids": np.array([4, 0, 4], dtype=np.int64)},
           lambda i, a: {"Out": np.stack([i["W"][k] for k in i["Ids"]])}, grad=("W",), name="lookup_table_ids_1d"),
    OpCase("lookup_table", {"W": r(5, 2), "Ids": np.array([[[1], [2], [3]], [[4], [4], [0]]], dtype=np.int64)},
           lambda i, a: {"Out": i["W"][i["Ids"][..., 0]]}, grad=("W",), name="lookup_table_3d_ids"),
    # lookup_table_v2 (fluid.embedding): Out is Ids' shape plus the width, a trailing 1 kept
    OpCase("lookup_table_v2", {"W": r(6, 4), "Ids": np.array([[1, 3], [5, 1]], dtype=np.int64)},
           lambda i, a: {"Out": i["W"][i["Ids"]]}, grad=("W",), name="lookup_table_v2"),
    OpCase("lookup_table_v2", {"W": r(5, 3), "Ids": np.array([[2], [4], [2]], dtype=np.int64)},
           lambda i, a: {"Out": np.where(i["Ids"][..., None] == 2, 0, i["W"][i["Ids"]])}, attrs={"padding_idx": 2},
           grad=("W",), name="lookup_table_v2_trailing_one_padding_idx"),
]


# -- NHWC: the NCHW reference on the transposed input, its output transposed back -----------------

def _nhwc(case, slot_in, slot_out):
    """``case`` (inputs NCHW) as its NHWC twin: the image input transposed to channels last, the
    reference run on it transposed back, data_format NHWC."""
    def ref(i, a):
        first = dict(i, **{slot_in: np.transpose(i[slot_in], (0, 3, 1, 2))})
        return {k: np.transpose(v, (0, 2, 3, 1)) for k, v in case.ref(first, dict(a, data_format="NCHW")).items()
                if k == slot_out}
    inputs = dict(case.inputs, **{slot_in: np.ascontiguousarray(np.transpose(case.inputs[slot_in], (0, 2, 3, 1)))})
    return OpCase(case.op, inputs, ref, attrs=dict(case.attrs, data_format="NHWC"), grad=case.grad,
                  name=case.id + "_nhwc")


CASES += [
    _nhwc(_conv_case(r(2, 3, 6, 5), r(4, 3, 3, 3), {"strides": [2, 1], "paddings": [1, 1]}, pads=(1, 1, 1, 1),
                     name="conv2d_stride_pad"), "Input", "Output"),
    _nhwc(_conv_case(r(1, 4, 5, 5), r(4, 2, 3, 3), {"dilations": [2, 2], "groups": 2, "paddings": [1, 2, 0, 1]},
                     pads=(1, 2, 0, 1), name="conv2d_dilation_groups"), "Input", "Output"),
    _nhwc(_conv_case(r(2, 3, 5, 5), r(3, 1, 3, 3), {"groups": 3, "paddings": [1, 1]}, pads=(1, 1, 1, 1),
                     op="depthwise_conv2d", name="depthwise_conv2d"), "Input", "Output"),
    _nhwc(_pool_case(r(2, 3, 5, 4), {"pooling_type": "max", "ksize": [3, 2], "strides": [2, 2], "paddings": [1, 0]},
                     pads=(1, 1, 0, 0), name="pool2d_max"), "X", "Out"),
    _nhwc(_pool_case(r(1, 2, 5, 5), {"pooling_type": "avg", "ksize": [2, 2], "strides": [2, 2], "ceil_mode": True},
                     name="pool2d_avg_ceil"), "X", "Out"),
]
