"""Op cases for cos_sim: Y of X's rows, and one Y row compared with every row of X."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(29)


def ref(i, a):
    x, y = i["X"].reshape(len(i["X"]), -1), i["Y"].reshape(len(i["Y"]), -1)
    xn = np.sqrt((x * x).sum(axis=1, keepdims=True))
    yn = np.sqrt((y * y).sum(axis=1, keepdims=True))
    return {"Out": (x * y).sum(axis=1, keepdims=True) / (xn * yn), "XNorm": xn, "YNorm": yn}


CASES = [
    OpCase("cos_sim", {"X": rng.normal(size=(4, 5)), "Y": rng.normal(size=(4, 5))}, ref, grad=("X", "Y"),
           loss_outputs=("Out",)),
    OpCase("cos_sim", {"X": rng.normal(size=(4, 5)), "Y": rng.normal(size=(1, 5))}, ref, grad=("X", "Y"),
           loss_outputs=("Out",), name="cos_sim_one_y_row"),
    OpCase("cos_sim", {"X": rng.normal(size=(1, 3)), "Y": rng.normal(size=(1, 3))}, ref, grad=("X", "Y"),
           loss_outputs=("Out",), name="cos_sim_one_row"),
]
