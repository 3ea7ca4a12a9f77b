"""Op cases for family matrix: addmm (Input broadcast, a 1-D Input as Paddle 2.x's, Alpha, Beta), bmm, dot (1-D and 2-D, ints), cross (the
default dim and a given one), kron (ranks that differ), trace (offsets, dim1 after dim2 as Fluid takes it) and
bilinear_tensor_product (with and without Bias)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(76)


def r(*shape):
    return rng.normal(size=shape)


def _addmm(i, a):
    return {"Out": a["Alpha"] * i["X"] @ i["Y"] + a["Beta"] * i["Input"]}


def _kron(i, a):
    return {"Out": np.kron(i["X"], i["Y"])}


def _cross(i, a):
    dim = a["dim"] if a["dim"] != 9 else i["X"].shape.index(3)
    return {"Out": np.cross(i["X"], i["Y"], axis=dim)}


def _trace(i, a):
    x = i["Input"]
    lo, hi = sorted((a["dim1"] % x.ndim, a["dim2"] % x.ndim))
    out = np.trace(x, offset=a["offset"], axis1=lo, axis2=hi)
    return {"Out": np.reshape(out, np.shape(out) or (1,))}


CASES = [
    OpCase("addmm", {"Input": r(3, 4), "X": r(3, 2), "Y": r(2, 4)}, _addmm, grad=("Input", "X", "Y")),
    OpCase(
        "addmm",
        {"Input": r(1, 4), "X": r(3, 2), "Y": r(2, 4)},
        _addmm,
        attrs={"Alpha": 0.5, "Beta": -2.0},
        grad=("Input", "X", "Y"),
        name="addmm_row_input_alpha_beta",
    ),
    OpCase("addmm", {"Input": r(3, 1), "X": r(3, 2), "Y": r(2, 4)}, _addmm, grad=("Input",), name="addmm_column_input"),
    OpCase("addmm", {"Input": r(4), "X": r(3, 2), "Y": r(2, 4)}, _addmm, grad=("Input",), name="addmm_1d_input_a_row"),
    OpCase("bmm", {"X": r(2, 3, 4), "Y": r(2, 4, 2)}, lambda i, a: {"Out": i["X"] @ i["Y"]}, grad=("X", "Y")),
    OpCase(
        "dot",
        {"X": r(5), "Y": r(5)},
        lambda i, a: {"Out": np.array([i["X"] @ i["Y"]])},
        grad=("X", "Y"),
        name="dot_vectors",
    ),
    OpCase(
        "dot",
        {"X": r(3, 4), "Y": r(3, 4)},
        lambda i, a: {"Out": (i["X"] * i["Y"]).sum(1, keepdims=True)},
        grad=("X", "Y"),
    ),
    OpCase(
        "dot",
        {"X": rng.integers(-5, 5, (2, 3)), "Y": rng.integers(-5, 5, (2, 3))},
        lambda i, a: {"Out": (i["X"] * i["Y"]).sum(1, keepdims=True)},
        name="dot_int64",
    ),
    OpCase("cross", {"X": r(2, 3, 3), "Y": r(2, 3, 3)}, _cross, grad=("X", "Y"), name="cross_first_dim_of_3"),
    OpCase("cross", {"X": r(3, 2, 3), "Y": r(3, 2, 3)}, _cross, attrs={"dim": -1}, grad=("X", "Y")),
    OpCase("kron", {"X": r(2, 3), "Y": r(3, 2)}, _kron, grad=("X", "Y")),
    OpCase("kron", {"X": r(2), "Y": r(2, 2, 3)}, _kron, grad=("X", "Y"), name="kron_ranks_differ"),
    OpCase("kron", {"X": rng.integers(-3, 3, (2, 2)), "Y": rng.integers(-3, 3, (2, 1))}, _kron, name="kron_int64"),
    OpCase("trace", {"Input": r(3, 4)}, _trace, grad=("Input",)),
    OpCase(
        "trace",
        {"Input": r(2, 3, 4)},
        _trace,
        attrs={"offset": 1, "dim1": 2, "dim2": 0},
        grad=("Input",),
        name="trace_offset_dims_reversed",
    ),
    OpCase(
        "trace",
        {"Input": r(4, 3, 2)},
        _trace,
        attrs={"offset": -2, "dim1": 0, "dim2": 1},
        grad=("Input",),
        name="trace_negative_offset",
    ),
]


def _bilinear_ref(i, a):
    out = np.einsum("bm,kmn,bn->bk", i["X"], i["Weight"], i["Y"])
    return {"Out": out + i["Bias"] if "Bias" in i else out}


CASES += [
    OpCase(
        "bilinear_tensor_product",
        {"X": r(3, 4), "Y": r(3, 2), "Weight": r(5, 4, 2), "Bias": r(1, 5)},
        _bilinear_ref,
        grad=("X", "Y", "Weight", "Bias"),
    ),
    OpCase(
        "bilinear_tensor_product",
        {"X": r(2, 3), "Y": r(2, 3), "Weight": r(2, 3, 3)},
        _bilinear_ref,
        grad=("X", "Y"),
        name="bilinear_tensor_product_no_bias",
    ),
]
