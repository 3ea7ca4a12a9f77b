"""Op cases for the first ops (tensor creation, mul, elementwise_add, relu, mean, reductions)."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(0)


def r(*shape):
    return rng.normal(size=shape)


CASES = [
    OpCase("mul", {"X": r(3, 4), "Y": r(4, 5)}, lambda i, a: {"Out": i["X"] @ i["Y"]}, grad=("X", "Y")),
    OpCase("mul", {"X": r(2, 3, 4), "Y": r(12, 5)}, name="mul_flatten",
           ref=lambda i, a: {"Out": (i["X"].reshape(2, 12) @ i["Y"]).reshape(2, 5)},
           attrs={"x_num_col_dims": 1}, grad=("X", "Y")),
    OpCase("elementwise_add", {"X": r(2, 3, 4), "Y": r(3)}, name="elementwise_add_axis1",
           ref=lambda i, a: {"Out": i["X"] + i["Y"].reshape(1, 3, 1)}, attrs={"axis": 1}, grad=("X", "Y")),
    OpCase("elementwise_add", {"X": r(2, 3), "Y": r(2, 3)}, lambda i, a: {"Out": i["X"] + i["Y"]},
           grad=("X", "Y")),
    OpCase("relu", {"X": r(4, 5)}, lambda i, a: {"Out": np.maximum(i["X"], 0)}, grad=("X",)),
    OpCase("mean", {"X": r(3, 4)}, lambda i, a: {"Out": np.array([i["X"].mean()])}, grad=("X",)),
    OpCase("scale", {"X": r(3, 4)}, lambda i, a: {"Out": 2.5 * i["X"] + 1.0},
           attrs={"scale": 2.5, "bias": 1.0}, grad=("X",)),
    OpCase("sum", {"X": [r(2, 3), r(2, 3), r(2, 3)]}, lambda i, a: {"Out": sum(i["X"])}, grad=("X",)),
    OpCase("assign", {"X": r(2, 3)}, lambda i, a: {"Out": i["X"]}, grad=("X",)),
    OpCase("reduce_sum", {"X": r(2, 3, 4)}, lambda i, a: {"Out": i["X"].sum(axis=1)},
           attrs={"dim": [1]}, grad=("X",)),
    OpCase("reduce_mean", {"X": r(2, 3, 4)}, lambda i, a: {"Out": i["X"].mean(axis=(0, 2), keepdims=True)},
           attrs={"dim": [0, 2], "keep_dim": True}, grad=("X",)),
    OpCase("reduce_max", {"X": r(3, 5)}, lambda i, a: {"Out": i["X"].max(axis=-1)},
           attrs={"dim": [-1]}, grad=("X",)),
    OpCase("reduce_min", {"X": r(3, 5)}, lambda i, a: {"Out": np.array([i["X"].min()])},
           attrs={"reduce_all": True}, grad=("X",)),
    OpCase("fill_constant", {}, lambda i, a: {"Out": np.full((2, 3), 1.5, dtype="float32")},
           attrs={"shape": [2, 3], "value": 1.5, "dtype": "float32"}),
    OpCase("fill_zeros_like", {"X": r(2, 3)}, lambda i, a: {"Out": np.zeros((2, 3))}),
]


def _check_random(low=None, high=None, mean=None, std=None, within=None):
    """Random ops have no reference values: check shape, dtype and the distribution's moments
    on 20,000 draws (tolerances are > 5 standard errors)."""
    def check(outs, inputs):
        out = outs["Out"]
        assert out.shape == (100, 200) and out.dtype == np.float32
        if low is not None:
            assert out.min() >= low and out.max() < high
        if mean is not None:
            assert abs(out.mean() - mean) < 0.05 * max(std, 1)
            assert abs(out.std() - std) / std < 0.05
        if within is not None:
            assert np.abs(out - mean).max() <= within
        assert len(np.unique(out)) > 19000, "draws should not repeat"
    return check


_RANDOM = {"shape": [100, 200], "dtype": "float32", "seed": 5}
CASES += [
    OpCase("uniform_random", {}, attrs=dict(_RANDOM, min=-2.0, max=3.0), outputs=("Out",),
           check=_check_random(low=-2.0, high=3.0, mean=0.5, std=5 / 12 ** 0.5)),
    OpCase("gaussian_random", {}, attrs=dict(_RANDOM, mean=1.0, std=2.0), outputs=("Out",),
           check=_check_random(mean=1.0, std=2.0)),
    OpCase("truncated_gaussian_random", {}, attrs=dict(_RANDOM, mean=0.0, std=1.0), outputs=("Out",),
           check=_check_random(mean=0.0, std=0.88, within=2.0)),
    OpCase("assign_value", {}, lambda i, a: {"Out": np.array([[1, 2, 3], [4, 5, 6]], dtype="float32")},
           attrs={"shape": [2, 3], "dtype": "float32", "fp32_values": [1, 2, 3, 4, 5, 6]}),
    OpCase("assign_value", {}, lambda i, a: {"Out": np.array([7, -8], dtype="int64")},
           attrs={"shape": [2], "dtype": "int64", "int64_values": [7, -8]}, name="assign_value_int64"),
]
