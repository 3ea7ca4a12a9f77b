"""Op cases for cos_sim (Y of X's rows, and one Y row compared with every row of X), squared_l2_distance (the
same two forms) and dist (p = 2, 0, inf, -inf and another p; X and Y broadcast)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(29)


def ref(i, a):
    x, y = i["X"].reshape(len(i["X"]), -1), i["Y"].reshape(len(i["Y"]), -1)
    xn = np.sqrt((x * x).sum(axis=1, keepdims=True))
    yn = np.sqrt((y * y).sum(axis=1, keepdims=True))
    return {"Out": (x * y).sum(axis=1, keepdims=True) / (xn * yn), "XNorm": xn, "YNorm": yn}


def _sq_l2(i, a):
    x, y = i["X"].reshape(len(i["X"]), -1), i["Y"].reshape(len(i["Y"]), -1)
    sub = x - y
    return {"sub_result": sub, "Out": (sub * sub).sum(axis=1, keepdims=True)}


def _dist(i, a):
    z, p = np.abs(i["X"] - i["Y"]), a["p"]
    if p == 0:
        return {"Out": np.array([np.count_nonzero(z)], float)}
    if np.isinf(p):
        return {"Out": np.array([z.max() if p > 0 else z.min()])}
    return {"Out": np.array([(z**p).sum() ** (1 / p)])}


CASES = [
    OpCase(
        "cos_sim",
        {"X": rng.normal(size=(4, 5)), "Y": rng.normal(size=(4, 5))},
        ref,
        grad=("X", "Y"),
        loss_outputs=("Out",),
    ),
    OpCase(
        "cos_sim",
        {"X": rng.normal(size=(4, 5)), "Y": rng.normal(size=(1, 5))},
        ref,
        grad=("X", "Y"),
        loss_outputs=("Out",),
        name="cos_sim_one_y_row",
    ),
    OpCase(
        "cos_sim",
        {"X": rng.normal(size=(1, 3)), "Y": rng.normal(size=(1, 3))},
        ref,
        grad=("X", "Y"),
        loss_outputs=("Out",),
        name="cos_sim_one_row",
    ),
    OpCase(
        "squared_l2_distance",
        {"X": rng.normal(size=(3, 2, 2)), "Y": rng.normal(size=(3, 1, 4))},
        _sq_l2,
        grad=("X", "Y"),
        loss_outputs=("Out",),
    ),
    OpCase(
        "squared_l2_distance",
        {"X": rng.normal(size=(3, 4)), "Y": rng.normal(size=(1, 4))},
        _sq_l2,
        grad=("X", "Y"),
        loss_outputs=("Out",),
        name="squared_l2_distance_one_y_row",
    ),
    OpCase("dist", {"X": rng.normal(size=(2, 3)), "Y": rng.normal(size=(3,))}, _dist, grad=("X", "Y")),
    OpCase(
        "dist",
        {"X": rng.normal(size=(2, 3)), "Y": rng.normal(size=(2, 1))},
        _dist,
        attrs={"p": 3.0},
        grad=("X", "Y"),
        name="dist_p3",
    ),
    OpCase(
        "dist",
        {"X": rng.normal(size=(2, 3)), "Y": rng.normal(size=(2, 3))},
        _dist,
        attrs={"p": float("inf")},
        grad=("X", "Y"),
        name="dist_inf",
    ),
    OpCase(
        "dist",
        {"X": rng.normal(size=(2, 3)), "Y": rng.normal(size=(2, 3))},
        _dist,
        attrs={"p": float("-inf")},
        name="dist_minus_inf",
    ),
    OpCase(
        "dist",
        {"X": np.array([[1.0, 2.0], [3.0, 4.0]]), "Y": np.array([1.0, 0.0])},
        _dist,
        attrs={"p": 0.0},
        name="dist_p0",
    ),
]
