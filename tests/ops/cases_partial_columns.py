"""Op cases for partial_concat and partial_sum (ops/partial_columns.py) against numpy slicing."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(41)
_XS = [rng.normal(size=(3, 5)) for _ in range(3)]

CASES = [
    OpCase(
        "partial_concat",
        {"X": _XS},
        lambda i, a: {"Out": np.concatenate([x[:, 1:3] for x in i["X"]], 1)},
        attrs={"start_index": 1, "length": 2},
        grad=("X",),
    ),
    OpCase(
        "partial_concat",
        {"X": _XS[:2]},
        lambda i, a: {"Out": np.concatenate([x[:, -2:] for x in i["X"]], 1)},
        attrs={"start_index": -2},
        grad=("X",),
        name="partial_concat_from_the_end",
    ),
    OpCase(
        "partial_sum",
        {"X": _XS},
        lambda i, a: {"Out": sum(x[:, 0:4] for x in i["X"])},
        attrs={"start_index": 0, "length": 4},
        grad=("X",),
    ),
    OpCase(
        "partial_sum",
        {"X": _XS[:1]},
        lambda i, a: {"Out": i["X"][0][:, 2:]},
        attrs={"start_index": 2},
        grad=("X",),
        name="partial_sum_one_input",
    ),
]

# partial_concat's kernel takes any negative length to the end (Fluid 1.8.5's; partial_sum's only -1)
CASES += [
    OpCase(
        "partial_concat",
        {"X": _XS[:2]},
        lambda i, a: {"Out": np.concatenate([x[:, 1:] for x in i["X"]], 1)},
        attrs={"start_index": 1, "length": -2},
        grad=("X",),
        name="partial_concat_negative_length",
    ),
]
