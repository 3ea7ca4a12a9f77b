"""Op cases for ops/py_func.py: a py_func op calling registered Python functions (as the layer
registers them: (values, lods) -> one array per output), forward against numpy and its Python
backward against float64 finite differences. The functions here compute x * sin(y) and its
gradient; the backward reads X, Out and Out@GRAD as Fluid's py_func grad op does."""

import numpy as np

from op_test import OpCase
from pe_cli.kernels import py_callables

rng = np.random.default_rng(71)


def _forward(values, lods):
    x, y = values
    return [x * np.sin(y)]


def _backward(values, lods):
    x, y, _out, dout = values
    return [dout * np.sin(y), dout * x * np.cos(y)]


_FWD, _BWD = py_callables.register(_forward), py_callables.register(_backward)

CASES = [
    OpCase(
        "py_func",
        {"X": [rng.normal(size=(3, 4)), rng.normal(size=(3, 4))]},
        lambda i, a: {"Out": [i["X"][0] * np.sin(i["X"][1])]},
        num_outputs={"Out": 1},
        attrs={"forward_callable_id": _FWD, "backward_callable_id": _BWD},
        grad=("X",),
    ),
]
