"""Op cases for family random: uniform_random, gaussian_random, truncated_gaussian_random, their
_batch_size_like forms, random_crop, seed, randint, randperm. Random ops have no reference values: each case
checks shapes, dtypes and the draws' distribution (or, for random_crop, that each output is a window of its
input)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(13)


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
# the rows come from Input's dim 0 (100), the rest from shape: the [100, 200] draws _check_random checks
_LIKE = {"Input": rng.normal(size=(100, 3))}
_LIKE_ATTRS = {"shape": [-1, 200], "dtype": "float32", "seed": 5}


def _check_diagonal(outs, inputs):
    """uniform_random with diag_num=3, diag_step=4 on [5, 5]: flat positions 0, 5, 10 hold diag_val."""
    out = outs["Out"].reshape(-1)
    assert out.shape == (25,) and np.all(out[[0, 5, 10]] == 7.0)
    rest = np.delete(out, [0, 5, 10])
    assert rest.min() >= -1.0 and rest.max() < 1.0


CASES = [
    OpCase(
        "uniform_random",
        {},
        attrs={"shape": [5, 5], "dtype": "float32", "seed": 5, "diag_num": 3, "diag_step": 4, "diag_val": 7.0},
        outputs=("Out",),
        check=_check_diagonal,
        name="uniform_random_diagonal",
    ),
    OpCase(
        "uniform_random",
        {},
        attrs=dict(_RANDOM, min=-2.0, max=3.0),
        outputs=("Out",),
        check=_check_random(low=-2.0, high=3.0, mean=0.5, std=5 / 12**0.5),
    ),
    OpCase(
        "gaussian_random",
        {},
        attrs=dict(_RANDOM, mean=1.0, std=2.0),
        outputs=("Out",),
        check=_check_random(mean=1.0, std=2.0),
    ),
    OpCase(
        "truncated_gaussian_random",
        {},
        attrs=dict(_RANDOM, mean=0.0, std=1.0),
        outputs=("Out",),
        check=_check_random(mean=0.0, std=0.88, within=2.0),
    ),
    OpCase(
        "uniform_random_batch_size_like",
        _LIKE,
        attrs=dict(_LIKE_ATTRS, min=-2.0, max=3.0),
        outputs=("Out",),
        check=_check_random(low=-2.0, high=3.0, mean=0.5, std=5 / 12**0.5),
    ),
    OpCase(
        "gaussian_random_batch_size_like",
        _LIKE,
        attrs=dict(_LIKE_ATTRS, mean=1.0, std=2.0),
        outputs=("Out",),
        check=_check_random(mean=1.0, std=2.0),
    ),
]


def _check_crop(outs, inputs):
    x, out = inputs["X"], outs["Out"]
    assert out.shape == (2, 3, 2, 3) and outs["SeedOut"].dtype == np.int64
    for b in range(2):
        for c in range(3):
            windows = [
                (i, j)
                for i in range(x.shape[2] - 1)
                for j in range(x.shape[3] - 2)
                if np.array_equal(x[b, c, i : i + 2, j : j + 3], out[b, c])
            ]
            assert windows, "each instance is a window of its input"
    assert outs["SeedOut"][0] != inputs["Seed"][0]


CASES += [
    OpCase(
        "random_crop",
        {"X": np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6), "Seed": np.array([11], dtype=np.int64)},
        attrs={"shape": [2, 3]},
        outputs=("Out", "SeedOut"),
        check=_check_crop,
    ),
]


def _check_drawn_seed(outs, inputs):
    out = outs["Out"]
    assert out.shape == (1,) and out.dtype == np.int32 and 1 <= out[0] < 1 << 31


CASES += [
    OpCase("seed", {}, lambda i, a: {"Out": np.array([7], dtype=np.int32)}, attrs={"seed": 7}, name="seed_given"),
    OpCase("seed", {}, attrs={"seed": 0}, outputs=("Out",), check=_check_drawn_seed, name="seed_drawn"),
]


def _check_randint(shape, dtype, low, high):
    def check(outs, inputs):
        out = outs["Out"]
        assert out.shape == shape and out.dtype == dtype
        assert out.min() >= low and out.max() < high and set(np.unique(out)) == set(range(low, high))

    return check


def _check_randperm(outs, inputs):
    out = outs["Out"]
    assert out.dtype == np.int32 and sorted(out) == list(range(50)) and list(out) != list(range(50))


CASES += [
    OpCase(
        "randint",
        {},
        attrs={"shape": [20, 30], "low": -3, "high": 4, "seed": 5},
        outputs=("Out",),
        check=_check_randint((20, 30), np.int64, -3, 4),
    ),
    OpCase(
        "randint",
        {"ShapeTensorList": [np.array([4], np.int64), np.array([25], np.int32)]},
        attrs={"low": 0, "high": 3, "dtype": "int32"},
        outputs=("Out",),
        check=_check_randint((4, 25), np.int32, 0, 3),
        name="randint_shape_tensor_list_int32",
    ),
    OpCase("randperm", {}, attrs={"n": 50, "dtype": "int32", "seed": 3}, outputs=("Out",), check=_check_randperm),
]


def _check_shape_tensor(outs, inputs):
    assert outs["Out"].shape == (3, 4) and outs["Out"].dtype == np.float32


def _check_like_diagonal(outs, inputs):
    """uniform_random_batch_size_like's diagonal, as uniform_random's (Fluid's kernel is the same)."""
    out = outs["Out"]
    assert out.shape == (100, 200) and np.all(out.reshape(-1)[[0, 201, 402]] == 7.0)


CASES += [
    OpCase(
        "gaussian_random",
        {"ShapeTensor": np.array([3, 4], np.int32)},
        attrs={"dtype": "float32", "seed": 5},
        outputs=("Out",),
        check=_check_shape_tensor,
        name="gaussian_random_shape_tensor",
    ),
    OpCase(
        "uniform_random_batch_size_like",
        _LIKE,
        attrs=dict(_LIKE_ATTRS, diag_num=3, diag_step=200, diag_val=7.0),
        outputs=("Out",),
        check=_check_like_diagonal,
        name="uniform_random_batch_size_like_diagonal",
    ),
]


def _check_poisson(outs, inputs):
    """Counts (whole numbers >= 0) in X's dtype whose means, over 20,000 draws per rate, are the rates
    (within 6 standard errors, sqrt(rate / n))."""
    out, rate = outs["Out"], inputs["X"][:, :1]
    assert out.shape == inputs["X"].shape and out.dtype == inputs["X"].dtype
    assert np.all(out >= 0) and np.all(out == np.round(out))
    assert np.all(np.abs(out.mean(axis=1, keepdims=True) - rate) <= 6 * np.sqrt(np.maximum(rate, 1e-9) / out.shape[1]))
    assert np.all(out[rate[:, 0] == 0] == 0)


CASES.append(
    OpCase(
        "poisson",
        {"X": np.repeat(np.array([[0.0], [0.5], [4.0], [30.0]]), 5000, axis=1)},
        outputs=("Out",),
        check=_check_poisson,
        attrs={},
    )
)


def _check_dirichlet(outs, inputs):
    """Rows on the simplex whose means, over 2,000 draws, are alpha / sum(alpha) (within 6 standard errors)."""
    out, alpha = outs["Out"], inputs["Alpha"][0]
    assert out.shape == inputs["Alpha"].shape and out.dtype == inputs["Alpha"].dtype and np.all(out > 0)
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-6)
    a0, mean = alpha.sum(), alpha / alpha.sum()
    se = np.sqrt(mean * (1 - mean) / (a0 + 1) / out.shape[0])
    assert np.all(np.abs(out.mean(axis=0) - mean) <= 6 * se)


CASES.append(
    OpCase(
        "dirichlet",
        {"Alpha": np.tile(np.array([[0.5, 2.0, 4.0]]), (2000, 1))},
        outputs=("Out",),
        check=_check_dirichlet,
        attrs={},
    )
)

CASES.append(  # Paddle 2.6's primitive uniform_random_p (its values bit for bit: tests/paddle/test_paddle_random.py)
    OpCase(
        "uniform_random_p",
        {},
        attrs={"shape": [100, 200], "dtype": "float32", "seed": 5, "min": -2.0, "max": 3.0},
        outputs=("Out",),
        check=_check_random(low=-2.0, high=3.0, mean=0.5, std=5 / 12**0.5),
    )
)
