"""Op cases for the fused ops (pe_cli/ops/fused.py): forward against numpy, gradients against
float64 finite differences."""

import numpy as np

from op_test import OpCase
from tests.ops.cases_normalization import bn_ref

rng = np.random.default_rng(23)


def r(*shape, gap=0.05):
    """Normal values kept at least ``gap`` away from 0 (relu's kink)."""
    x = rng.normal(size=shape)
    return np.where(np.abs(x) < gap, np.copysign(gap, x) + x, x)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_ACTS = {"relu": lambda v: np.maximum(v, 0), "tanh": np.tanh, "sigmoid": _sigmoid, "square": np.square}


def _fluid_y(x, y, axis):
    if axis == -1 or y.ndim >= x.ndim:
        return y
    return y.reshape((1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim))


def _ref(act):
    def ref(i, a):
        inter = i["X"] + _fluid_y(i["X"], i["Y"], a["axis"])
        return {"Out": _ACTS[act](inter), "IntermediateOut": inter}

    return ref


def _case(act, x, y, axis=-1, suffix=""):
    # X and Y are drawn so that X + Y stays away from relu's kink at 0
    return OpCase(
        "fused_elemwise_activation",
        {"X": x, "Y": y},
        _ref(act),
        attrs={"functor_list": [act, "elementwise_add"], "axis": axis},
        grad=("X", "Y"),
        loss_outputs=("Out",),
        name=f"fused_elemwise_activation_{act}{suffix}",
    )


def _away(x, y, axis=-1):
    """x moved so that x + y is at least 0.05 away from 0."""
    s = x + _fluid_y(x, y, axis)
    return np.where(np.abs(s) < 0.05, x + np.copysign(0.05, s), x)


_Y = r(5)
_X = _away(r(4, 5), _Y)
_YA = r(3)
_XS = r(3, 4)
_XA = _away(r(2, 3, 4), _YA, axis=1)

CASES = [
    _case("relu", _X, _Y, suffix="_bias"),
    _case("tanh", r(3, 4), r(3, 4)),
    _case("square", r(3, 4), r(4), suffix="_bias"),  # its gradient reads IntermediateOut
    _case("sigmoid", r(3, 4), r(4), suffix="_bias"),
    _case("relu", _XA, _YA, axis=1, suffix="_axis1"),
    _case("relu", _away(r(3, 4), _XS), _XS, suffix="_same_shape"),  # a residual connection
]


def _forms_ref(i, a):
    """Fluid 1.8's other forms: [binary, unary] (Out = binary(X, unary(Y)), IntermediateOut = unary(Y)) and
    [unary, binary] with scale (times the attribute) or an activation, binary add or mul."""
    first, second = a["functor_list"]
    unary = {**_ACTS, "scale": lambda v: v * a["scale"]}
    binary = {"elementwise_add": np.add, "elementwise_mul": np.multiply}
    if first in binary:
        inter = unary[second](i["Y"])
        return {"Out": binary[first](i["X"], _fluid_y(i["X"], inter, a["axis"])), "IntermediateOut": inter}
    inter = binary[second](i["X"], _fluid_y(i["X"], i["Y"], a["axis"]))
    return {"Out": unary[first](inter), "IntermediateOut": inter}


CASES += [
    OpCase(
        "fused_elemwise_activation",
        {"X": r(3, 4), "Y": y},
        _forms_ref,
        attrs={"functor_list": functors, "axis": -1, "scale": 0.1},
        grad=("X", "Y"),
        loss_outputs=("Out",),
        name=f"fused_elemwise_activation_{'_'.join(f.replace('elementwise_', '') for f in functors)}{suffix}",
    )
    for functors, y, suffix in (
        (["elementwise_add", "relu"], r(3, 4), ""),
        (["elementwise_mul", "scale"], r(4), "_bias"),
        (["elementwise_add", "scale"], r(3, 4), ""),
        (["scale", "elementwise_add"], r(4), "_bias"),
        (["tanh", "elementwise_mul"], r(3, 4), ""),
        (["elementwise_mul", "sigmoid"], r(4), "_bias"),
    )
]


# -- fused_batch_norm_act: act(batch_norm(X)) ------------------------------------------------------


def _bn_act_case(act, x, channels, attrs=None, suffix=""):
    inputs = {
        "X": x,
        "Scale": rng.uniform(0.5, 1.5, channels),
        "Bias": r(channels),
        "Mean": r(channels) * 0.1,
        "Variance": rng.uniform(0.5, 1.5, channels),
    }

    def ref(i, a):
        outs = bn_ref(
            i["X"],
            i["Scale"],
            i["Bias"],
            i["Mean"],
            i["Variance"],
            a["momentum"],
            a["epsilon"],
            a["is_test"],
            a["use_global_stats"],
            a["data_layout"],
        )
        return dict(outs, Y=_ACTS[act](outs["Y"]))

    return OpCase(
        "fused_batch_norm_act",
        inputs,
        ref,
        attrs=dict(attrs or {}, act_type=act),
        grad=("X", "Scale", "Bias"),
        loss_outputs=("Y",),
        name=f"fused_batch_norm_act_{act}{suffix}",
        grad_rtol=1e-4,
        grad_atol=1e-6,
    )


CASES += [
    _bn_act_case("relu", r(4, 3, 2, 2), 3),
    _bn_act_case("sigmoid", r(6, 4), 4, {"momentum": 0.5}, suffix="_2d"),
    _bn_act_case("tanh", r(3, 2, 2, 4), 4, {"data_layout": "NHWC"}, suffix="_nhwc"),
    _bn_act_case("relu", r(3, 3, 2, 2), 3, {"is_test": True}, suffix="_is_test"),
]


# fusion_group: swish written out (x * sigmoid(x)), then scale and tanh, over labels
def _swish_tanh(i, a):
    x = i["Inputs"][0]
    s = _sigmoid(x)
    g = x * s
    return {"Outs": [s, g, np.tanh(2.0 * g + 0.5)]}


_GROUP = [
    ["sigmoid", "activation", "sigmoid", {"X": "x"}, {"Out": "s"}, {}],
    ["elementwise_mul", "elementwise", "elementwise_mul", {"X": "x", "Y": "s"}, {"Out": "g"}, {"axis": -1}],
    ["scale", "elementwise", "scale", {"X": "g"}, {"Out": "y"}, {"scale": 2.0, "bias": 0.5, "bias_after_scale": True}],
    ["tanh", "activation", "tanh", {"X": "y"}, {"Out": "t"}, {}],
]
CASES.append(
    OpCase(
        "fusion_group",
        {"Inputs": [r(3, 4)]},
        _swish_tanh,
        attrs={"subgraph": _GROUP, "input_names": ["x"], "output_names": ["s", "g", "t"]},
        num_outputs={"Outs": 3},
        name="fusion_group_swish_scale_tanh",
    )
)


# -- fused_gemm_epilogue: act(op(X) @ op(Y) + Bias), and its gradient op with relu_grad ------------


def _op(a, trans):
    """op(a) of the 2-D stored operand, as fused_gemm_epilogue flattens X (see _gemm_ref)."""
    return a.T if trans else a


def _gemm_ref(i, a):
    x, y = i["X"], i["Y"]
    x2 = x.reshape(x.shape[0], -1) if a["trans_x"] else x.reshape(-1, x.shape[-1])
    out = _op(x2, a["trans_x"]) @ _op(y, a["trans_y"]) + i["Bias"]
    if a["activation"] == "relu":
        out = np.maximum(out, 0)
    rows = x.shape[1:] if a["trans_x"] else x.shape[:-1]
    return {"Out": out.reshape(rows + out.shape[-1:])}


def _gemm_case(x_shape, y_shape, n, suffix, **attrs):
    """A case whose X @ Y + Bias stays at least 0.05 away from relu's kink: drawn again until it is."""
    full = dict(dict(trans_x=False, trans_y=False, activation="none"), **attrs)
    while True:
        inputs = {"X": r(*x_shape), "Y": r(*y_shape), "Bias": r(n)}
        if np.abs(_gemm_ref(inputs, dict(full, activation="none"))["Out"]).min() > 0.05:
            break
    return OpCase(
        "fused_gemm_epilogue",
        inputs,
        _gemm_ref,
        attrs=attrs,
        grad=("X", "Y", "Bias"),
        name=f"fused_gemm_epilogue_{suffix}",
    )


def _gemm_grad_ref(i, a):
    """The backward of Out = X @ Y + Bias where X is a relu's output: DX zeroed where X <= 0."""
    d, x, y = i["DOut"], i["X"], i["Y"]
    x2, d2 = x.reshape(-1, x.shape[-1]), d.reshape(-1, d.shape[-1])
    dx = d2 @ y.T
    if a["activation_grad"] == "relu_grad":
        dx = dx * (x2 > 0)
    return {"DX": dx.reshape(x.shape), "DY": x2.T @ d2, "DBias": d2.sum(axis=0)}


_RELU_X = np.maximum(r(2, 3, 4), 0)  # a relu's output: zeros and positive values
CASES += [
    _gemm_case((4, 5), (5, 3), 3, "relu", activation="relu"),
    _gemm_case((2, 3, 4), (4, 5), 5, "none_3d"),
    _gemm_case((5, 4), (3, 5), 3, "trans_xy_relu", trans_x=True, trans_y=True, activation="relu"),
    _gemm_case((3, 2, 2), (3, 4), 4, "trans_x_3d", trans_x=True),
    _gemm_case((4, 6), (2, 6), 2, "trans_y", trans_y=True),
    OpCase(
        "fused_gemm_epilogue_grad",
        {"DOut": r(2, 3, 5), "X": _RELU_X, "Y": r(4, 5)},
        _gemm_grad_ref,
        attrs={"activation_grad": "relu_grad"},
        name="fused_gemm_epilogue_grad_relu_grad",
    ),
    OpCase(
        "fused_gemm_epilogue_grad",
        {"DOut": r(6, 2), "X": r(6, 3), "Y": r(3, 2)},
        _gemm_grad_ref,
        attrs={"activation_grad": "none"},
        name="fused_gemm_epilogue_grad_none",
    ),
]

# fc (Fluid's op): Input flattened after in_num_col_dims, @ W + Bias, relu
_FX, _FW, _FB = rng.normal(size=(2, 3, 2, 2)), rng.normal(size=(4, 5)), rng.normal(size=(5,))
CASES += [
    OpCase(
        "fc",
        {"Input": _FX, "W": _FW, "Bias": _FB},
        lambda i, a: {"Out": np.maximum(i["Input"].reshape(6, 4) @ i["W"] + i["Bias"], 0).reshape(2, 3, 5)},
        attrs={"in_num_col_dims": 2, "activation_type": "relu"},
    ),
    OpCase(
        "fc",
        {"Input": _FX, "W": np.pad(_FW[:4, :3], ((0, 4), (0, 4)))},
        lambda i, a: {"Out": (i["Input"].reshape(6, 4) @ _FW[:4, :3]).reshape(2, 3, 3)},
        attrs={"in_num_col_dims": 2, "padding_weights": True},
        name="fc_padding_weights",
    ),
]

# fused_elemwise_add_activation (Paddle 2.x's type): Paddle 2.6.2's recorded values
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("fused")
