"""Op cases for the fused ops (pe_cli/ops/fused.py): act(X + Y) against numpy, and the gradient
against float64 finite differences, for relu (the fused loops), activations whose gradient reads
their input (IntermediateOut) or their output, with and without attributes, and other broadcasts."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(23)


def r(*shape):
    return rng.normal(size=shape)


def _away_from_zero(x, gap=0.05):
    return np.where(np.abs(x) < gap, np.copysign(gap, x) + x, x)


_ACTS = {"relu": lambda v: np.maximum(v, 0), "tanh": np.tanh, "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
         "leaky_relu": lambda v: np.where(v > 0, v, 0.1 * v), "softplus": lambda v: np.log1p(np.exp(v))}


def case(act, x, y, axis=-1, save=False, act_attrs=None, suffix=""):
    if act in ("relu", "leaky_relu"):          # keep X + Y away from the kink
        x = _away_from_zero(x + y.reshape((1,) * (axis if axis >= 0 else x.ndim - y.ndim) + y.shape
                                         + (1,) * (x.ndim - (axis if axis >= 0 else x.ndim - y.ndim) - y.ndim))) \
            - y.reshape((1,) * (axis if axis >= 0 else x.ndim - y.ndim) + y.shape
                        + (1,) * (x.ndim - (axis if axis >= 0 else x.ndim - y.ndim) - y.ndim))

    def ref(i, a):
        start = a["axis"] if a["axis"] >= 0 else i["X"].ndim - i["Y"].ndim
        yb = i["Y"].reshape((1,) * start + i["Y"].shape + (1,) * (i["X"].ndim - start - i["Y"].ndim))
        pre = i["X"] + yb
        out = {"Out": _ACTS[act](pre)}
        if a["save_intermediate_out"]:
            out["IntermediateOut"] = pre
        return out
    return OpCase("fused_elemwise_activation", {"X": x, "Y": y}, ref,
                  attrs={"functor_list": [act, "elementwise_add"], "axis": axis, "save_intermediate_out": save,
                         "act_attrs": act_attrs or {}},
                  grad=("X", "Y"), loss_outputs=("Out",), name=f"fused_elemwise_activation_{act}{suffix}")


CASES = [
    case("relu", r(5, 4), r(4), suffix="_bias_rows"),
    case("relu", r(2, 3, 4), r(3), axis=1, suffix="_axis1"),
    case("tanh", r(5, 4), r(4)),
    case("sigmoid", r(2, 3, 4), r(3, 4), axis=1, suffix="_axis1"),
    case("softplus", r(4, 3), r(3), save=True, suffix="_reads_intermediate"),
    case("leaky_relu", r(4, 3), r(3), save=True, act_attrs={"alpha": 0.1}, suffix="_attrs"),
    case("relu", r(4, 3), r(3), save=True, suffix="_saves_intermediate"),
]
