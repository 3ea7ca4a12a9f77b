"""paddle.distribution's parts no Paddle recording covers (Paddle 2.6.2's values: tests/paddle/
test_paddle_function_oracle.py, distributions.json): ExponentialFamily's entropy and kl_divergence by the
Bregman divergence of a log normalizer (the static program's own gradients), register_kl's dispatch to
the most specific pair, a Transform called on a distribution or on a transform, Paddle's argument errors."""

import math

import numpy as np
import pytest

from pe_cli import paddle

D = paddle.distribution


class Exponential(D.ExponentialFamily):
    """rate * exp(-rate x): natural parameter -rate, log normalizer -log(rate), carrier measure 0."""

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -paddle.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0.0


def _run(build, **feeds):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        vars_ = {k: paddle.static.data(k, list(v.shape), str(v.dtype)) for k, v in feeds.items()}
        outs = build(**vars_)
    return paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feeds, fetch_list=list(outs))


def test_exponential_family_entropy_and_kl_by_the_log_normalizer():
    a, b = np.array([0.5, 2.0], "float32"), np.array([1.5, 0.25], "float32")
    entropy, kl = _run(
        lambda a, b: [Exponential(a).entropy(), D.kl_divergence(Exponential(a), Exponential(b))], a=a, b=b
    )
    np.testing.assert_allclose(entropy, 1 - np.log(a), rtol=1e-6)  # 1 - log(rate)
    np.testing.assert_allclose(kl, np.log(a / b) + b / a - 1, rtol=1e-5)  # KL(Exp(a) || Exp(b))


def test_register_kl_dispatches_to_the_most_specific_pair():
    """(Paddle 2.6.2 fails here with a KeyError: its dispatch looks up the pair (Normal, Special), which
    nothing registered; pe's dispatch reads the pair the right way round.)"""

    class Special(D.Normal):
        pass

    @D.register_kl(Special, D.Normal)
    def _kl(p, q):
        return paddle.full([1], 42.0)

    loc = np.array([0.0], "float32")
    got = _run(
        lambda loc: [
            D.kl_divergence(Special(loc, loc + 1.0), D.Normal(loc, loc + 1.0)),
            D.kl_divergence(D.Normal(loc, loc + 1.0), D.Normal(loc, loc + 2.0)),
        ],
        loc=loc,
    )
    assert got[0][0] == 42.0
    np.testing.assert_allclose(got[1], [math.log(2) + 1 / 8 - 0.5], rtol=1e-6)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0))


def test_a_transform_called_on_a_distribution_or_a_transform():
    x = np.array([0.5, 1.5], "float32")
    y, lp = _run(
        lambda x: [
            D.ExpTransform()(D.AffineTransform(x * 0, x * 0 + 2.0))(x),
            D.ExpTransform()(D.Normal(x * 0, x * 0 + 1.0)).log_prob(x),
        ],
        x=x,
    )
    np.testing.assert_allclose(y, 2 * np.exp(x), rtol=1e-6)  # the chain [exp, affine]: exp first
    np.testing.assert_allclose(lp, -(np.log(x) ** 2) / 2 - 0.5 * np.log(2 * np.pi) - np.log(x), rtol=1e-5)


def test_paddles_argument_errors():
    paddle.enable_static()
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        with pytest.raises(ValueError, match="all arguments should be Tensor"):
            D.Normal(paddle.full([1], 0.0), 1.0)
        with pytest.raises(TypeError, match="Normal: loc must be"):
            D.Normal({"a": 1}, 1.0)
        with pytest.raises(ValueError, match="total_count must be int"):
            D.Multinomial(0, paddle.full([3], 0.3))
        with pytest.raises(ValueError, match="reinterpreted_batch_rank"):
            D.Independent(D.Normal(paddle.full([2], 0.0), paddle.full([2], 1.0)), 2)
        with pytest.raises(ValueError, match="Cauchy distribution has no mean"):
            D.Cauchy(0.0, 1.0).mean
        with pytest.raises(NotImplementedError, match="non-injective"):
            D.AbsTransform().forward_log_det_jacobian(paddle.full([2], 1.0))
