"""Paddle 2.6.2 as the oracle of ``Variable.__getitem__`` in a Paddle 2.x static program, for the indices
Fluid 1.8 had no rule for: ``...`` (Ellipsis), ``None`` (a new dim of 1), a list of ints, a numpy int
array, an int Variable that is not 0-D (it gathers; a 0-D one picks one index), a bool mask inside a
tuple, a tuple mixing slices, ints and lists (the gathered dims go first, or stay where they stood when
adjacent), and a negative step with no bounds (``x[:, ::-2]``); and ``paddle.static.setitem`` with ints, slices,
``...``, ``None`` and 0-D Variables. Records each case's values, dtype, shape
and the float inputs' gradients into tests/data/paddle_oracle/indexing26.json, with
tools/paddle_function_oracle.py's runner; tests/paddle/test_paddle_function_oracle.py replays them on pe.

    /work/p26/bin/python tools/paddle26_indexing_oracle.py    # paddlepaddle==2.6.2"""

import importlib.util
import os

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "paddle_function_oracle", os.path.join(_HERE, "paddle_function_oracle.py")
)
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
case = base._case

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "indexing26.json")

X = np.arange(24, dtype="float32").reshape(2, 3, 4) * 0.5 - 2.75
I = np.array([2, 0, 2], "int64")
I2 = np.array([[0, 1], [1, 1]], "int32")
M = np.array([True, False, True])

CASES = {
    "ellipsis": case(lambda P, x: [x[..., 0], x[0, ..., 1], x[...], x[1, ...], x[..., 1:3]], x=X),
    "none": case(lambda P, x: [x[None, 0], x[:, None], x[None], x[..., None], x[0, 1, 2, None]], x=X),
    # (Paddle 2.6 puts a None after a dropped dim at its index less the dropped dims before it: [1, 1, 2, 4])
    "none_after_dropped": case(lambda P, x: [x[None, :, None, 1], x[0, 0:2, None]], x=X),
    "int_list": case(lambda P, x: [x[[0, 1]], x[[1]], x[[1, 1, 0]], x[[[0, 1], [1, 0]]]], x=X),
    "bool_list": case(lambda P, x: [x[[True, False]], x[:, [True, False, True]]], x=X),
    "numpy_array": case(lambda P, x: [x[np.array([1, 0])], x[np.array([[1, 0], [0, 0]])], x[:, np.array([2])]], x=X),
    "int_variable_gathers": case(lambda P, x, i: [x[:, i], x[1, i], P.transpose(x, [1, 0, 2])[i]], x=X, i=I),
    "one_value_variable_gathers": case(lambda P, x, i: [x[i[1:2]], x[i[1:] // 2]], x=X, i=I),
    "zero_d_variable_picks": case(lambda P, x, i: [x[P.sum(i) - 3], x[:, P.max(i)]], x=X, i=I),
    "int_variable_2d": case(lambda P, x, i2: [x[i2], x[:, i2]], x=X, i2=I2),
    "bool_mask_in_tuple": case(lambda P, x, m: [x[:, m], x[1, m], x[0, m, 1:]], x=X, m=M),
    "slices_and_lists": case(
        lambda P, x: [x[:, [0, 2]], x[1:, [2, 0], 1], x[[1, 0], :, 1:3], x[0, [2, 0]], x[:, :, [3, 0, 3]]], x=X
    ),
    "lists_together": case(lambda P, x: [x[[0, 1], [2, 0]], x[[0, 1], 1, [2, 3]], x[:, [0, 2], [1, 3]]], x=X),
    # (lists apart: the gathered dim goes first, as numpy's)
    "lists_apart": case(lambda P, x: [x[[0, 1], :, [2, 3]], x[[1, 0], 1:, [0, 0]]], x=X),
    "variables_together": case(lambda P, x, i: [x[:, i, i], x[[1, 0, 1], i]], x=X, i=I),
    "negative_step_no_bounds": case(lambda P, x: [x[:, ::-2], x[:, 1::-1], x[..., :0:-2], x[::-1, ::-1]], x=X),
    "all_ints_0d": case(lambda P, x: [x[1, 2, 3], x[..., 1, 2, 3]], x=X),
    # paddle.static.setitem: a new Variable (one set_value op; x[i] = v itself raises RuntimeError in static mode)
    "setitem_numbers": case(
        lambda P, x: [
            P.static.setitem(x, 0, 5.0),
            P.static.setitem(x, (-1, -1), 0.5),
            P.static.setitem(x, (1, slice(0, 2)), np.ones((2, 4)) * 3),
        ],
        x=X,
    ),
    "setitem_variables": case(
        lambda P, x, v, i: [
            P.static.setitem(x, (..., 1), v[:, :3] * 2.0),
            P.static.setitem(x, (None, 1, slice(None, None, -1)), v[0]),
            P.static.setitem(x, (slice(None), slice(None, None, -2)), x[:, ::2] * 2.0),
            P.static.setitem(x, (P.max(i) - 1, 2), v[1, 1:2]),
            P.static.setitem(x, slice(0, 1), P.full([4], 2, "int64")),
        ],
        x=X,
        v=np.array([[1.5, -0.5, 2.0, 0.25], [3.0, -1.0, 0.75, -2.5]], "float32"),
        i=I,
    ),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle26_indexing_oracle.py")
