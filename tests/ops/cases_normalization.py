"""Op cases for ops/normalization.py: instance_norm, group_norm (references after Fluid 1.8's unit tests
test_instance_norm_op.py, test_group_norm_op.py), batch_norm and layer_norm (references straight from
their definitions)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(1108)


def r(*shape):
    return rng.normal(size=shape)


def _affine(y, i, c):
    shape = (1, c) + (1,) * (y.ndim - 2)
    if "Scale" in i:
        y = y * i["Scale"].reshape(shape)
    if "Bias" in i:
        y = y + i["Bias"].reshape(shape)
    return y


def _instance_norm_ref(i, a):
    x = i["X"]
    axes = tuple(range(2, x.ndim))
    mean, var = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    y = _affine((x - mean) / np.sqrt(var + a["epsilon"]), i, x.shape[1])
    return {"Y": y, "SavedMean": mean.reshape(-1), "SavedVariance": 1 / np.sqrt(var.reshape(-1) + a["epsilon"])}


def _group_norm_ref(i, a):
    x, g = i["X"], a["groups"]
    xg = x.reshape(x.shape[0], g, -1)
    mean, var = xg.mean(axis=2), xg.var(axis=2)
    y = ((xg - mean[:, :, None]) / np.sqrt(var[:, :, None] + a["epsilon"])).reshape(x.shape)
    return {"Y": _affine(y, i, x.shape[1]), "Mean": mean, "Variance": var}


def _group_norm_nhwc_ref(i, a):
    out = _group_norm_ref(dict(i, X=np.moveaxis(i["X"], -1, 1)), a)
    return dict(out, Y=np.moveaxis(out["Y"], 1, -1))


CASES = [
    OpCase(
        "instance_norm",
        {"X": r(2, 3, 4, 5), "Scale": r(3), "Bias": r(3)},
        _instance_norm_ref,
        attrs={"epsilon": 1e-5},
        grad=("X", "Scale", "Bias"),
        loss_outputs=("Y",),
    ),
    OpCase(
        "instance_norm",
        {"X": r(3, 2, 6)},
        _instance_norm_ref,
        attrs={"epsilon": 1e-3},
        grad=("X",),
        loss_outputs=("Y",),
        name="instance_norm_3d_no_affine",
    ),
    OpCase(
        "group_norm",
        {"X": r(2, 6, 3, 2), "Scale": r(6), "Bias": r(6)},
        _group_norm_ref,
        attrs={"epsilon": 1e-5, "groups": 3},
        grad=("X", "Scale", "Bias"),
        loss_outputs=("Y",),
    ),
    OpCase(
        "group_norm",
        {"X": r(3, 4, 5), "Scale": r(4)},
        _group_norm_ref,
        attrs={"epsilon": 1e-4, "groups": 4},
        grad=("X", "Scale"),
        loss_outputs=("Y",),
        name="group_norm_3d_scale_only",
    ),
    OpCase(
        "group_norm",
        {"X": r(2, 4, 2, 2)},
        _group_norm_ref,
        attrs={"epsilon": 1e-5, "groups": 1},
        grad=("X",),
        loss_outputs=("Y",),
        name="group_norm_one_group",
    ),
    # channels last (test_group_norm_op.py's *_With_NHWC cases)
    OpCase(
        "group_norm",
        {"X": r(2, 3, 2, 6), "Scale": r(6), "Bias": r(6)},
        _group_norm_nhwc_ref,
        attrs={"epsilon": 1e-5, "groups": 3, "data_layout": "NHWC"},
        grad=("X", "Scale", "Bias"),
        loss_outputs=("Y",),
        name="group_norm_nhwc",
    ),
]


# -- batch_norm / layer_norm: from the definitions -------------------------------------------------


def bn_ref(x, scale, bias, mean, var, momentum=0.9, epsilon=1e-5, is_test=False, use_global_stats=False, layout="NCHW"):
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
    return {
        "Y": y,
        "MeanOut": mean_out,
        "VarianceOut": var_out,
        "SavedMean": m,
        "SavedVariance": 1 / np.sqrt(v + epsilon),
    }


def _bn_case(x, channels, attrs=None, name="", **kw):
    inputs = {
        "X": x,
        "Scale": rng.uniform(0.5, 1.5, channels),
        "Bias": r(channels),
        "Mean": r(channels) * 0.1,
        "Variance": rng.uniform(0.5, 1.5, channels),
    }
    attrs = attrs or {}

    def ref(i, a):
        test_mode = a["is_test"] and not a["trainable_statistics"]  # Fluid's: a test batch's own statistics
        return bn_ref(
            i["X"],
            i["Scale"],
            i["Bias"],
            i["Mean"],
            i["Variance"],
            a["momentum"],
            a["epsilon"],
            test_mode,
            a["use_global_stats"],
            a["data_layout"],
        )

    return OpCase(
        "batch_norm",
        inputs,
        ref,
        attrs=attrs,
        grad=("X", "Scale", "Bias"),
        loss_outputs=("Y",),
        name=name,
        grad_rtol=1e-4,
        grad_atol=1e-6,
        **kw,
    )


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


CASES += [
    # batch_norm
    _bn_case(r(4, 3, 2, 2), 3, name="batch_norm_train_nchw"),
    _bn_case(r(6, 4), 4, {"momentum": 0.5, "epsilon": 1e-4}, name="batch_norm_train_2d"),
    _bn_case(r(3, 2, 2, 4), 4, {"data_layout": "NHWC"}, name="batch_norm_train_nhwc"),
    _bn_case(r(3, 3, 2, 2), 3, {"is_test": True}, name="batch_norm_is_test"),
    _bn_case(r(3, 3, 2, 2), 3, {"use_global_stats": True}, name="batch_norm_use_global_stats"),
    _bn_case(r(3, 3, 2, 2), 3, {"is_test": True, "trainable_statistics": True}, name="batch_norm_trainable_statistics"),
    OpCase(
        "batch_norm",
        {"X": r(4, 3, 2, 2), "Scale": r(3), "Bias": r(3), "Mean": r(3), "Variance": r(3) ** 2},
        ref=lambda i, a: {"Y": bn_ref(i["X"], i["Scale"], i["Bias"], i["Mean"], i["Variance"])["Y"]},
        outputs=("Y", "SavedMean", "SavedVariance"),
        loss_outputs=("Y",),
        grad=("Scale", "Bias"),
        name="batch_norm_param_grads_only",
        grad_rtol=1e-4,
    ),
    # layer_norm
    OpCase(
        "layer_norm",
        {"X": r(2, 3, 4), "Scale": rng.uniform(0.5, 1.5, 12), "Bias": r(12)},
        lambda i, a: ln_ref(i["X"], i["Scale"], i["Bias"], 1),
        grad=("X", "Scale", "Bias"),
        loss_outputs=("Y",),
        name="layer_norm_axis1",
        grad_rtol=1e-4,
    ),
    OpCase(
        "layer_norm",
        {"X": r(2, 3, 5), "Scale": rng.uniform(0.5, 1.5, 5), "Bias": r(5)},
        lambda i, a: ln_ref(i["X"], i["Scale"], i["Bias"], 2, 1e-4),
        attrs={"begin_norm_axis": 2, "epsilon": 1e-4},
        grad=("X", "Scale", "Bias"),
        loss_outputs=("Y",),
        name="layer_norm_axis2",
        grad_rtol=1e-4,
    ),
    OpCase(
        "layer_norm",
        {"X": r(3, 6)},
        lambda i, a: ln_ref(i["X"]),
        grad=("X",),
        loss_outputs=("Y",),
        name="layer_norm_no_scale_bias",
        grad_rtol=1e-4,
    ),
]


# -- norm (l2_normalize; reference after Fluid 1.8's test_norm_op.py) ---------------------------------


def _norm_ref(axis, eps):
    def ref(i, a):
        n = np.sqrt(np.sum(i["X"] ** 2, axis=axis, keepdims=True) + eps)
        return {"Out": i["X"] / n, "Norm": n}

    return ref


CASES += [
    OpCase("norm", {"X": r(3, 4)}, _norm_ref(1, 1e-10), attrs={"axis": 1}, grad=("X",), loss_outputs=("Out",)),
    OpCase(
        "norm",
        {"X": r(2, 3, 4)},
        _norm_ref(1, 1e-6),
        attrs={"axis": -2, "epsilon": 1e-6},
        grad=("X",),
        loss_outputs=("Out",),
        name="norm_middle_axis",
    ),
    OpCase(
        "norm",
        {"X": r(4, 2)},
        _norm_ref(0, 1e-10),
        attrs={"axis": 0},
        grad=("X",),
        loss_outputs=("Out",),
        name="norm_axis0",
    ),
]


# -- affine_channel, lrn (references after Fluid 1.8's unit tests) -----------------------------------


def _affine_ref(nhwc):
    def ref(i, a):
        shape = (1, 1, 1, -1) if nhwc else (1, -1, 1, 1)
        return {"Out": i["X"] * i["Scale"].reshape(shape) + i["Bias"].reshape(shape)}

    return ref


def _lrn_ref(i, a):
    x = i["X"]
    nhwc = a["data_format"] == "NHWC"
    xc = x.transpose(0, 3, 1, 2) if nhwc else x
    c = xc.shape[1]
    mid = np.full(xc.shape, a["k"], dtype=np.float64)
    pre = (a["n"] - 1) // 2
    for ch in range(c):
        for j in range(a["n"]):
            src = ch - pre + j
            if 0 <= src < c:
                mid[:, ch] += a["alpha"] * xc[:, src] ** 2
    out = xc * mid ** -a["beta"]
    if nhwc:
        out, mid = out.transpose(0, 2, 3, 1), mid.transpose(0, 2, 3, 1)
    return {"Out": out, "MidOut": mid}


CASES += [
    OpCase(
        "affine_channel",
        {"X": r(2, 3, 4, 2), "Scale": r(3), "Bias": r(3)},
        _affine_ref(False),
        attrs={"data_layout": "NCHW"},
        grad=("X", "Scale", "Bias"),
    ),
    OpCase(
        "affine_channel",
        {"X": r(2, 2, 3, 4), "Scale": r(4), "Bias": r(4)},
        _affine_ref(True),
        attrs={"data_layout": "NHWC"},
        grad=("X", "Scale", "Bias"),
        name="affine_channel_nhwc",
    ),
    OpCase(
        "lrn",
        {"X": r(2, 6, 3, 2)},
        _lrn_ref,
        attrs={"n": 5, "k": 1.0, "alpha": 0.1, "beta": 0.75},
        grad=("X",),
        loss_outputs=("Out",),
    ),
    OpCase(
        "lrn",
        {"X": r(2, 2, 3, 5)},
        _lrn_ref,
        attrs={"n": 4, "k": 2.0, "alpha": 0.3, "beta": 0.5, "data_format": "NHWC"},
        grad=("X",),
        loss_outputs=("Out",),
        name="lrn_nhwc_even_window",
    ),
]


# -- data_norm: Fluid's formula; with slot_dim a slot whose first value is 0 gives 0 ---------------------


def _data_norm_ref(i, a):
    x = i["X"]
    means, scales = i["BatchSum"] / i["BatchSize"], np.sqrt(i["BatchSize"] / i["BatchSquareSum"])
    y = (x - means) * scales
    if a.get("enable_scale_and_shift"):
        y = y * i["scale_w"] + i["bias"]
    if a.get("slot_dim", -1) > 0:
        k = a["slot_dim"]
        for n in range(len(x)):
            for s in range(0, x.shape[1], k):
                if x[n, s] == 0:
                    y[n, s : s + k] = 0
    return {"Y": y, "Means": means, "Scales": scales}


def _dn_inputs(n, c):
    return {
        "X": r(n, c),
        "BatchSize": rng.uniform(5, 10, c),
        "BatchSum": r(c) * 3,
        "BatchSquareSum": rng.uniform(5, 20, c),
    }


_SLOTTED = _dn_inputs(3, 6)
_SLOTTED["X"][1, 0] = _SLOTTED["X"][2, 3] = 0.0
CASES += [
    OpCase("data_norm", _dn_inputs(4, 3), _data_norm_ref, grad=("X",), loss_outputs=("Y",)),
    OpCase(
        "data_norm",
        {**_dn_inputs(3, 4), "scale_w": rng.uniform(0.5, 2, 4), "bias": r(4)},
        _data_norm_ref,
        attrs={"enable_scale_and_shift": True},
        grad=("X", "scale_w", "bias"),
        loss_outputs=("Y",),
        name="data_norm_scale_and_shift",
    ),
    # (a hidden slot's first value sits on the step at 0: its gradient is checked where every slot is shown)
    OpCase("data_norm", _SLOTTED, _data_norm_ref, attrs={"slot_dim": 3}, name="data_norm_slots"),
    OpCase(
        "data_norm",
        _dn_inputs(2, 6),
        _data_norm_ref,
        attrs={"slot_dim": 2},
        grad=("X",),
        loss_outputs=("Y",),
        name="data_norm_slots_shown",
    ),
]


# Fluid 1.8's attributes given by tensors (pe_cli/kernels/tensor_attrs.py): the tensor holds a value other
# than the attribute's, so a kernel that read the attribute fails the reference.
def _bn_momentum(i, a):
    out = bn_ref(i["X"], i["Scale"], i["Bias"], i["Mean"], i["Variance"], float(i["MomentumTensor"][0]), a["epsilon"])
    return {slot: out[slot] for slot in ("Y", "MeanOut", "VarianceOut")}


CASES += [
    OpCase(
        "batch_norm",
        {
            "X": r(4, 3, 2, 2),
            "Scale": rng.uniform(0.5, 1.5, 3),
            "Bias": r(3),
            "Mean": r(3) * 0.1,
            "Variance": rng.uniform(0.5, 1.5, 3),
            "MomentumTensor": np.array([0.5]),
        },
        _bn_momentum,
        attrs={"momentum": 0.9},
        name="batch_norm_momentum_tensor",
    ),
]
