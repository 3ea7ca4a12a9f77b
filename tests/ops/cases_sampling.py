"""Op cases for family sampling: the inference forms (rrelu and dropout_nd with is_test) against Paddle 2.6.2's
recorded values (tests/ops/paddle26.py); the draws, which are pe's generator's and not Paddle's stream, checked
for their distribution (tolerances over 5 standard errors) and structure."""

import numpy as np

from op_test import OpCase
from tests.ops.paddle26 import recorded_cases

rng = np.random.default_rng(85)
_P = rng.uniform(0.1, 0.9, (50, 400))


def _bernoulli(outs, inputs):
    out = outs["Out"]
    assert out.shape == _P.shape and set(np.unique(out)) <= {0.0, 1.0}
    assert abs(out.mean() - _P.mean()) < 0.02


def _exponential(outs, inputs):
    out = outs["Out"]
    assert out.shape == (100, 200) and out.min() >= 0 and abs(out.mean() - 0.5) < 0.02


def _multinomial(outs, inputs):
    out = outs["Out"]
    assert out.shape == (3, 4) and out.dtype == np.int64
    assert all(len(set(row)) == 4 for row in out), "without replacement a row repeats no category"
    assert not np.isin(out[0], [1]).any(), "a category of probability 0 is never drawn"


def _multinomial_counts(outs, inputs):
    counts = np.bincount(outs["Out"].reshape(-1), minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.2, 0.3, 0.5], atol=0.02)


def _rrelu_train(outs, inputs):
    x, out, noise = inputs["X"], outs["Out"], outs["Noise"]
    neg = x < 0
    assert np.all(noise[~neg] == 1) and noise[neg].min() >= 0.125 and noise[neg].max() <= 1 / 3 + 1e-7
    np.testing.assert_allclose(out, x * noise, rtol=1e-6)


def _dropout_nd_train(outs, inputs):
    x, out, mask = inputs["X"], outs["Out"], outs["Mask"]
    assert mask.shape == (40, 1, 30) and set(np.unique(mask)) <= {0, 1}
    np.testing.assert_allclose(out, x * mask / 0.75, rtol=1e-6)
    assert abs(mask.mean() - 0.75) < 0.05


def _gumbel(outs, inputs):
    out = outs["Out"]
    assert out.shape == (2000, 4)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-6)
    # the argmax of X + Gumbel noise is a draw from softmax(X): its frequencies
    freq = np.bincount(out.argmax(axis=1), minlength=4) / 2000
    want = np.exp(inputs["X"][0]) / np.exp(inputs["X"][0]).sum()
    np.testing.assert_allclose(freq, want, atol=0.05)


def _gumbel_hard(outs, inputs):
    out = outs["Out"]
    assert set(np.unique(out)) <= {0.0, 1.0} and np.all(out.sum(axis=0) == 1)


def _inplace_uniform(outs, inputs):
    out = outs["Out"]
    assert out.shape == (100, 200) and np.all(out.reshape(-1)[[0, 4, 8]] == 9.0)
    rest = np.delete(out.reshape(-1), [0, 4, 8])
    assert rest.min() >= -2 and rest.max() < 3 and abs(rest.mean() - 0.5) < 0.05


def _inplace_gaussian(outs, inputs):
    out = outs["out"]
    assert out.shape == (100, 200) and abs(out.mean() - 1.0) < 0.05 and abs(out.std() - 2.0) < 0.05


_LOGITS = np.tile(np.log([0.1, 0.2, 0.3, 0.4]), (2000, 1))
CASES = recorded_cases("sampling") + [
    OpCase(
        "uniform_random_inplace",
        {"X": np.zeros((100, 200))},
        outputs=("Out",),
        check=_inplace_uniform,
        attrs={"min": -2.0, "max": 3.0, "diag_num": 3, "diag_step": 3, "diag_val": 9.0},
        name="uniform_random_inplace",
    ),
    OpCase(
        "gaussian_inplace",
        {"x": np.zeros((100, 200))},
        outputs=("out",),
        check=_inplace_gaussian,
        attrs={"mean": 1.0, "std": 2.0},
        name="gaussian_inplace",
    ),
    OpCase(
        "gumbel_softmax",
        {"X": _LOGITS},
        outputs=("Out",),
        check=_gumbel,
        attrs={"temperature": 0.5},
        name="gumbel_softmax",
    ),
    OpCase(
        "gumbel_softmax",
        {"X": rng.uniform(-1, 1, (3, 5))},
        outputs=("Out",),
        check=_gumbel_hard,
        attrs={"hard": True, "axis": 0},
        name="gumbel_softmax_hard",
    ),
    OpCase("bernoulli", {"X": _P}, outputs=("Out",), check=_bernoulli, name="bernoulli"),
    OpCase(
        "exponential",
        {"X": np.zeros((100, 200))},
        attrs={"lambda": 2.0},
        outputs=("Out",),
        check=_exponential,
        name="exponential",
    ),
    OpCase(
        "multinomial",
        {"X": np.tile([0.3, 0.0, 0.2, 0.4, 0.1, 0.6], (3, 1))},
        attrs={"num_samples": 4},
        outputs=("Out",),
        check=_multinomial,
        name="multinomial",
    ),
    OpCase(
        "multinomial",
        {"X": np.array([2.0, 3.0, 5.0])},
        attrs={"num_samples": 20000, "replacement": True},
        outputs=("Out",),
        check=_multinomial_counts,
        name="multinomial_replacement",
    ),
    OpCase(
        "rrelu", {"X": rng.uniform(-2, 2, (20, 30))}, outputs=("Out", "Noise"), check=_rrelu_train, name="rrelu_train"
    ),
    OpCase(
        "dropout_nd",
        {"X": rng.uniform(-1, 1, (40, 5, 30))},
        outputs=("Out", "Mask"),
        check=_dropout_nd_train,
        attrs={"dropout_prob": 0.25, "dropout_implementation": "upscale_in_train", "axis": [0, 2]},
        name="dropout_nd_train",
    ),
]


def _bernoulli_p(outs, inputs):
    """bernoulli_p of p 0.3 over [100, 200]: 0 or 1, float64, a mean within 5 standard errors (0.016) of 0.3."""
    y = outs["Y"]
    assert y.shape == (100, 200) and y.dtype == np.float64 and set(np.unique(y)) <= {0.0, 1.0}
    assert abs(y.mean() - 0.3) < 0.016


CASES.append(  # Paddle 2.6's primitive bernoulli_p (its values after paddle.seed: tests/paddle/test_paddle_random.py)
    OpCase(
        "bernoulli_p", {}, attrs={"shape": [100, 200], "dtype": "float64", "p": 0.3}, outputs=("Y",), check=_bernoulli_p
    )
)
