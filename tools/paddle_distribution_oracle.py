"""Paddle 2.6.2 as the oracle of ``paddle.distribution`` in static mode: each case of CASES builds
distributions from fed parameters, calls their methods (entropy, log_prob, prob/probs, mean, variance,
cdf, kl_divergence, the transforms' forward / inverse / log-det-Jacobians) and records the values and
the parameters' gradients into tests/data/paddle_oracle/distributions.json, with tools/
paddle_function_oracle.py's runner. Samples differ between engines (each its own generator): their
cases record moments over many draws, which tests/paddle/test_paddle_function_oracle.py compares within
sampling error.

    /work/paddle262/bin/python tools/paddle_distribution_oracle.py    # paddlepaddle==2.6.2"""

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

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "distributions.json")

LOC = np.array([0.25, -1.0, 2.0], "float32")
SCALE = np.array([0.5, 1.5, 2.0], "float32")
VALUE = np.array([0.5, 0.0, 1.0], "float32")
PROBS = np.array([0.3, 0.6, 0.85], "float32")
CONC = np.array([[0.5, 2.0, 1.5], [3.0, 1.0, 0.75]], "float32")
SIMPLEX = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], "float32")


def _pair(D, cls, a, b):
    return cls(a, b), cls(a * 0.5 + 0.25, b * 1.5)


def _methods(d, value, *names):
    return [
        getattr(d, n)(value)
        if n in ("log_prob", "prob", "probs", "cdf", "icdf")
        else getattr(d, n)()
        if n == "entropy"
        else getattr(d, n)
        for n in names
    ]


def _loc_scale(cls_name, names, value=VALUE):
    def build(P, loc, scale, v):
        d, other = _pair(P.distribution, getattr(P.distribution, cls_name), loc, scale)
        return _methods(d, v, *names) + [d.kl_divergence(other), P.distribution.kl_divergence(d, other)]

    return case(build, grad=False, loc=LOC, scale=SCALE, v=value)


def _gradients(cls_name, value=VALUE):
    """log_prob's, entropy's and kl_divergence's gradients, each in a program of its own: Paddle names a
    method's output after its distribution ("Normal_log_prob"), so a program calling a method twice writes
    one variable twice and Paddle's backward doubles its gradient."""

    def one(method):
        def build(P, loc, scale, v):
            d, other = _pair(P.distribution, getattr(P.distribution, cls_name), loc, scale)
            return [
                {"log_prob": lambda: d.log_prob(v), "entropy": d.entropy, "kl": lambda: d.kl_divergence(other)}[
                    method
                ]()
            ]

        return case(build, loc=LOC, scale=SCALE, v=value)

    return {f"{cls_name.lower()}_{m}_gradient": one(m) for m in ("log_prob", "entropy", "kl")}


def _moments(P, draws, axis=0):
    return [P.mean(draws, axis=axis), P.std(draws, axis=axis)]


def _sampled(make, n=4000, tolerance=(0.08, 0.06)):
    """Draws' mean and standard deviation over ``n`` draws (no gradient)."""
    return case(
        lambda P, **kw: _moments(P, P.cast(make(P.distribution, kw).sample([n]), "float32")),
        grad=False,
        tolerance=tolerance,
        **{"loc": LOC, "scale": SCALE},
    )


def _transform(make, x, names=("forward", "inverse_of_forward", "forward_log_det_jacobian")):
    def build(P, x):
        t = make(P)
        y = t.forward(x)
        out = {
            "forward": lambda: y,
            "inverse_of_forward": lambda: t.inverse(y),
            "forward_log_det_jacobian": lambda: t.forward_log_det_jacobian(x),
            "inverse_log_det_jacobian": lambda: t.inverse_log_det_jacobian(y),
        }
        return [out[n]() for n in names]

    return case(build, x=x)


_X = np.array([[0.3, -1.2, 0.8], [1.5, -0.4, 0.1]], "float32")
CASES = {
    "normal": _loc_scale("Normal", ("entropy", "log_prob", "probs", "prob", "mean", "variance")),
    "normal_numbers": case(
        lambda P, v: [P.distribution.Normal(0.5, 2.0).log_prob(v), P.distribution.Normal(0.5, 2.0).entropy()], v=VALUE
    ),
    **_gradients("Normal"),
    **_gradients("Cauchy"),
    **_gradients("Laplace"),
    **_gradients("LogNormal", value=np.array([0.5, 0.25, 3.0], "float32")),
    "uniform": case(
        lambda P, lo, v: (lambda d: [d.entropy(), d.log_prob(v), d.probs(v), d.prob(v)])(
            P.distribution.Uniform(lo, lo + 2.0)
        ),
        grad=False,
        lo=LOC - 1.0,
        v=VALUE,
    ),
    "uniform_log_prob_gradient": case(
        lambda P, lo, v: [P.distribution.Uniform(lo, lo + 2.0).log_prob(v)], lo=LOC - 1.0, v=VALUE
    ),
    "uniform_outside": case(
        lambda P, lo, v: (lambda d: [d.log_prob(v), d.probs(v)])(P.distribution.Uniform(lo, lo + 0.5)),
        grad=False,
        lo=LOC,
        v=VALUE,
    ),
    "cauchy": _loc_scale("Cauchy", ("entropy", "log_prob", "prob", "cdf")),
    "laplace": _loc_scale("Laplace", ("entropy", "log_prob", "prob", "cdf", "mean", "stddev", "variance")),
    "laplace_icdf": case(
        lambda P, loc, scale, q: [P.distribution.Laplace(loc, scale).icdf(q)],
        loc=LOC,
        scale=SCALE,
        q=np.array([0.1, 0.5, 0.8], "float32"),
    ),
    "lognormal": _loc_scale(
        "LogNormal", ("entropy", "log_prob", "probs", "mean", "variance"), value=np.array([0.5, 0.25, 3.0], "float32")
    ),
    "gumbel": case(
        lambda P, loc, scale, v: _methods(
            P.distribution.Gumbel(loc, scale), v, "entropy", "log_prob", "prob", "cdf", "mean", "variance", "stddev"
        ),
        loc=LOC,
        scale=SCALE,
        v=VALUE,
    ),
    "bernoulli": case(
        lambda P, p, q, v: (
            lambda d, o: _methods(d, v, "entropy", "log_prob", "prob", "cdf", "mean", "variance") + [d.kl_divergence(o)]
        )(P.distribution.Bernoulli(p), P.distribution.Bernoulli(q)),
        grad=False,
        p=PROBS,
        q=PROBS[::-1].copy(),
        v=np.array([1.0, 0.0, 1.0], "float32"),
    ),
    # pe's own modules build their Variable operators by the program's rules (issue 95): 0-D in, 0-D out
    "bernoulli_0d": case(
        lambda P, p, v, w: (lambda d: [d.cdf(v), d.cdf(w), d.log_prob(v)])(P.distribution.Bernoulli(p)),
        grad=False,
        p=np.array(0.3, "float32"),
        v=np.array(0.5, "float32"),
        w=np.array(-0.5, "float32"),
    ),
    "constraints": case(
        lambda P, x, s, v: (lambda C: [C.real(x), C.positive(x), C.positive(v), C.simplex(s)])(
            P.distribution.constraint
        ),
        grad=False,
        x=np.array([0.5, np.nan, -1.0, 1.5], "float32"),
        s=np.array([0.2, 0.3, 0.5], "float32"),
        v=np.array(0.5, "float32"),
    ),
    # (Paddle 2.6.2's static backward fails through log_prob's broadcast_tensors: the gradients without them)
    "bernoulli_gradients": case(
        lambda P, p, q: (lambda d, o: [d.entropy(), d.mean, d.variance, d.kl_divergence(o)])(
            P.distribution.Bernoulli(p), P.distribution.Bernoulli(q)
        ),
        p=PROBS,
        q=PROBS[::-1].copy(),
    ),
    "geometric": case(
        lambda P, p, q, k: (
            lambda d, o: [
                d.entropy(),
                d.pmf(k),
                d.log_pmf(k),
                d.cdf(k),
                d.mean,
                d.variance,
                d.stddev,
                d.kl_divergence(o),
            ]
        )(P.distribution.Geometric(p), P.distribution.Geometric(q)),
        p=PROBS,
        q=PROBS[::-1].copy(),
        k=np.array([0.0, 2.0, 5.0], "float32"),
    ),
    "beta": case(
        lambda P, a, b, v: (
            lambda d, o: (
                _methods(d, v, "entropy", "log_prob", "prob", "mean", "variance") + [P.distribution.kl_divergence(d, o)]
            )
        )(P.distribution.Beta(a, b), P.distribution.Beta(b, a + 0.5)),
        a=SCALE,
        b=PROBS * 3,
        v=PROBS,
    ),
    "dirichlet": case(
        lambda P, c, v: (
            lambda d, o: (
                _methods(d, v, "entropy", "log_prob", "prob", "mean", "variance") + [P.distribution.kl_divergence(d, o)]
            )
        )(P.distribution.Dirichlet(c), P.distribution.Dirichlet(c * 0.5 + 0.5)),
        c=CONC,
        v=SIMPLEX,
    ),
    "categorical": case(
        lambda P, a, b, i: (
            lambda d, o: [
                d.entropy(),
                d.kl_divergence(o),
                d.probs(i),
                d.log_prob(i),
                P.distribution.kl_divergence(d, o),
            ]
        )(P.distribution.Categorical(a), P.distribution.Categorical(b)),
        grad=False,
        a=CONC,
        b=CONC[::-1].copy(),
        i=np.array([2, 0], "int64"),
    ),
    "categorical_gradients": case(
        lambda P, a, b, i: (lambda d, o: [d.entropy(), d.kl_divergence(o), d.log_prob(i)])(
            P.distribution.Categorical(a), P.distribution.Categorical(b)
        ),
        a=CONC,
        b=CONC[::-1].copy(),
        i=np.array([2, 0], "int64"),
    ),
    "multinomial": case(
        lambda P, p, v: (lambda d: [d.log_prob(v), d.prob(v), d.mean, d.variance, d.entropy()])(
            P.distribution.Multinomial(5, p)
        ),
        p=SIMPLEX,
        v=np.array([[1.0, 2.0, 2.0], [3.0, 0.0, 2.0]], "float32"),
    ),
    "independent": case(
        lambda P, loc, scale, v: (lambda d: [d.entropy(), d.log_prob(v), d.prob(v), d.mean])(
            P.distribution.Independent(P.distribution.Normal(loc, scale), 1)
        ),
        grad=False,
        loc=_X,
        scale=np.abs(_X) + 0.5,
        v=_X * 0.5,
    ),
    "independent_gradients": case(
        lambda P, loc, scale, v: (lambda d: [d.entropy(), d.log_prob(v)])(
            P.distribution.Independent(P.distribution.Normal(loc, scale), 1)
        ),
        loc=_X,
        scale=np.abs(_X) + 0.5,
        v=_X * 0.5,
    ),
    "transformed": case(
        lambda P, loc, scale, v: [
            P.distribution.TransformedDistribution(
                P.distribution.Normal(loc, scale),
                [P.distribution.AffineTransform(loc, scale), P.distribution.ExpTransform()],
            ).log_prob(v)
        ],
        loc=LOC,
        scale=SCALE,
        v=np.array([0.5, 0.25, 3.0], "float32"),
    ),
    "transform_affine": _transform(lambda P: P.distribution.AffineTransform(P.full([3], 0.5), P.full([3], -2.0)), _X),
    "transform_exp": _transform(
        lambda P: P.distribution.ExpTransform(),
        _X,
        names=("forward", "inverse_of_forward", "forward_log_det_jacobian", "inverse_log_det_jacobian"),
    ),
    "transform_power": _transform(lambda P: P.distribution.PowerTransform(P.full([1], 3.0)), np.abs(_X) + 0.1),
    "transform_sigmoid": _transform(lambda P: P.distribution.SigmoidTransform(), _X),
    "transform_tanh": _transform(lambda P: P.distribution.TanhTransform(), _X),
    "transform_abs": _transform(lambda P: P.distribution.AbsTransform(), _X, names=("forward",)),
    "transform_softmax": _transform(
        lambda P: P.distribution.SoftmaxTransform(), _X, names=("forward", "inverse_of_forward")
    ),
    "transform_chain": _transform(
        lambda P: P.distribution.ChainTransform(
            [P.distribution.AffineTransform(P.full([3], 0.5), P.full([3], 2.0)), P.distribution.ExpTransform()]
        ),
        _X,
    ),
    "transform_independent": _transform(
        lambda P: P.distribution.IndependentTransform(P.distribution.ExpTransform(), 1), _X
    ),
    "transform_reshape": _transform(lambda P: P.distribution.ReshapeTransform((3,), (3, 1)), _X),
    "transform_stack": _transform(
        lambda P: P.distribution.StackTransform([P.distribution.ExpTransform(), P.distribution.SigmoidTransform()], 0),
        _X,
    ),
    "transform_stick_breaking": _transform(lambda P: P.distribution.StickBreakingTransform(), _X),
    "sample_normal": _sampled(lambda D, kw: D.Normal(kw["loc"], kw["scale"])),
    "sample_uniform": _sampled(lambda D, kw: D.Uniform(kw["loc"], kw["loc"] + kw["scale"])),
    "sample_laplace": _sampled(lambda D, kw: D.Laplace(kw["loc"], kw["scale"])),
    "sample_gumbel": _sampled(lambda D, kw: D.Gumbel(kw["loc"], kw["scale"])),
    "sample_lognormal": _sampled(lambda D, kw: D.LogNormal(kw["loc"] * 0.2, kw["scale"] * 0.2)),
    "sample_bernoulli": _sampled(lambda D, kw: D.Bernoulli(kw["scale"] * 0.3)),
    "sample_geometric": _sampled(lambda D, kw: D.Geometric(kw["scale"] * 0.3 + 0.2), tolerance=(0.1, 0.1)),
    "sample_beta": _sampled(lambda D, kw: D.Beta(kw["scale"], kw["scale"] + 1.0)),
    "sample_dirichlet": _sampled(lambda D, kw: D.Dirichlet(kw["scale"] * 2.0)),
    "sample_categorical": _sampled(lambda D, kw: D.Categorical(kw["scale"])),
    "sample_multinomial": _sampled(lambda D, kw: D.Multinomial(4, kw["scale"]), n=2000),
    "rsample_normal": case(
        lambda P, loc, scale: _moments(P, P.distribution.Normal(loc, scale).rsample([4000])),
        grad=False,
        tolerance=(0.08, 0.06),
        loc=LOC,
        scale=SCALE,
    ),
    "sample_cauchy_median": case(
        lambda P, loc, scale: [P.median(P.distribution.Cauchy(loc, scale).sample([4000]), axis=0)],
        grad=False,
        tolerance=(0.1, 0.1),
        loc=LOC,
        scale=SCALE,
    ),
}


if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle_distribution_oracle.py")
