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


CASES = [
    OpCase("prelu", {"X": away_from_zero(3, 4, 2, 2), "Alpha": np.array([0.25])}, _prelu_ref("all"),
           attrs={"mode": "all"}, grad=("X", "Alpha")),
    OpCase("prelu", {"X": away_from_zero(2, 3, 2, 3), "Alpha": r(1, 3, 1, 1)}, _prelu_ref("channel"),
           attrs={"mode": "channel"}, grad=("X", "Alpha"), name="prelu_channel"),
    OpCase("prelu", {"X": away_from_zero(3, 2, 3), "Alpha": r(1, 2, 3)}, _prelu_ref("element"),
           attrs={"mode": "element"}, grad=("X", "Alpha"), name="prelu_element"),
]
