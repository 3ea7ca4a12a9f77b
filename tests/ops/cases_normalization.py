"""Op cases for ops/norm_extra.py: prelu (all, channel, element), instance_norm, group_norm.
References follow Fluid 1.8's unit tests (test_prelu_op.py, test_instance_norm_op.py,
test_group_norm_op.py)."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(1108)


def r(*shape):
    return rng.normal(size=shape)


def away_from_zero(*shape):
    """Values at least 0.1 from 0, where prelu's kink would spoil finite differences."""
    v = r(*shape)
    return np.where(np.abs(v) < 0.1, np.sign(v + 1e-12) * 0.1 + v, v)


def _prelu_ref(mode):
    def ref(i, a):
        x, alpha = i["X"], i["Alpha"]
        if mode == "channel":
            alpha = alpha.reshape((1, x.shape[1]) + (1,) * (x.ndim - 2))
        elif mode == "element":
            alpha = alpha.reshape((1,) + x.shape[1:])
        else:
            alpha = alpha.reshape(())
        return {"Out": np.maximum(x, 0) + np.minimum(x, 0) * alpha}
    return ref


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


CASES = [
    OpCase("prelu", {"X": away_from_zero(3, 4, 2, 2), "Alpha": np.array([0.25])}, _prelu_ref("all"),
           attrs={"mode": "all"}, grad=("X", "Alpha")),
    OpCase("prelu", {"X": away_from_zero(2, 3, 2, 3), "Alpha": r(1, 3, 1, 1)}, _prelu_ref("channel"),
           attrs={"mode": "channel"}, grad=("X", "Alpha"), name="prelu_channel"),
    OpCase("prelu", {"X": away_from_zero(3, 2, 3), "Alpha": r(1, 2, 3)}, _prelu_ref("element"),
           attrs={"mode": "element"}, grad=("X", "Alpha"), name="prelu_element"),
    OpCase("instance_norm", {"X": r(2, 3, 4, 5), "Scale": r(3), "Bias": r(3)}, _instance_norm_ref,
           attrs={"epsilon": 1e-5}, grad=("X", "Scale", "Bias"), loss_outputs=("Y",)),
    OpCase("instance_norm", {"X": r(3, 2, 6)}, _instance_norm_ref, attrs={"epsilon": 1e-3}, grad=("X",),
           loss_outputs=("Y",), name="instance_norm_3d_no_affine"),
    OpCase("group_norm", {"X": r(2, 6, 3, 2), "Scale": r(6), "Bias": r(6)}, _group_norm_ref,
           attrs={"epsilon": 1e-5, "groups": 3}, grad=("X", "Scale", "Bias"), loss_outputs=("Y",)),
    OpCase("group_norm", {"X": r(3, 4, 5), "Scale": r(4)}, _group_norm_ref, attrs={"epsilon": 1e-4, "groups": 4},
           grad=("X", "Scale"), loss_outputs=("Y",), name="group_norm_3d_scale_only"),
    OpCase("group_norm", {"X": r(2, 4, 2, 2)}, _group_norm_ref, attrs={"epsilon": 1e-5, "groups": 1}, grad=("X",),
           loss_outputs=("Y",), name="group_norm_one_group"),
]
