"""``paddle.distribution.kl_divergence`` and ``register_kl`` (Paddle 2.6.2's): KL(p || q) by the function
registered for the most specific pair of classes; between two members of one exponential family, by
the Bregman divergence of their log normalizers (static gradients)."""

import functools
import warnings

from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution, sum_rightmost
from .exponential_family import ExponentialFamily, natural_gradients
from .geometric import Geometric
from .laplace import Laplace
from .lognormal import LogNormal
from .normal import Normal
from .uniform import Uniform
from ._tensor import P

__all__ = ["register_kl", "kl_divergence"]

_REGISTER_TABLE = {}


def kl_divergence(p, q):
    """KL(p || q) of two distributions (NotImplementedError where no function is registered for them)."""
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """A decorator registering ``f(p, q)`` as the KL divergence of ``cls_p`` from ``cls_q``."""
    if not issubclass(cls_p, Distribution) or not issubclass(cls_q, Distribution):
        raise TypeError("cls_p and cls_q must be subclass of Distribution")

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f

    return decorator


def _dispatch(cls_p, cls_q):
    matches = [(p, q) for p, q in _REGISTER_TABLE if issubclass(cls_p, p) and issubclass(cls_q, q)]
    if not matches:
        raise NotImplementedError
    left_p, left_q = min(_Compare(*m) for m in matches).classes
    # the most specific q first (Paddle 2.6.2 unpacks this pair unswapped and so fails with a KeyError where
    # only (p, q) is registered; pe swaps it back, as the rule intends)
    right_q, right_p = min(_Compare(*reversed(m)) for m in matches).classes
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn(
            f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). Please register_kl("
            f"{left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
        )
    return _REGISTER_TABLE[left_p, left_q]


@functools.total_ordering
class _Compare:
    """Orders pairs of classes: a pair is smaller when its classes are subclasses (more specific)."""

    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for x, y in zip(self.classes, other.classes):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _by_method(p, q):
    return p.kl_divergence(q)


for _cls in (Bernoulli, Categorical, Cauchy, Normal, Uniform, Laplace, Geometric):
    register_kl(_cls, _cls)(_by_method)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    pa, pb, qa, qb = p.alpha, p.beta, q.alpha, q.beta
    ps, qs = P.add(pa, pb), P.add(qa, qb)
    t = P.subtract(
        P.add(P.add(P.lgamma(qa), P.lgamma(qb)), P.lgamma(ps)), P.add(P.add(P.lgamma(pa), P.lgamma(pb)), P.lgamma(qs))
    )
    t = P.add(t, P.add(P.multiply(P.subtract(pa, qa), P.digamma(pa)), P.multiply(P.subtract(pb, qb), P.digamma(pb))))
    return P.add(t, P.multiply(P.subtract(qs, ps), P.digamma(ps)))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    pc, qc = p.concentration, q.concentration
    ps = P.sum(pc, -1)
    t = P.subtract(P.subtract(P.lgamma(ps), P.lgamma(P.sum(qc, -1))), P.sum(P.subtract(P.lgamma(pc), P.lgamma(qc)), -1))
    return P.add(
        t, P.sum(P.multiply(P.subtract(pc, qc), P.subtract(P.digamma(pc), P.unsqueeze(P.digamma(ps), -1))), -1)
    )


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """A(theta_q) - A(theta_p) - <theta_q - theta_p, dA/dtheta at theta_p> (same family only)."""
    if type(p) is not type(q):
        raise NotImplementedError
    params, log_norm, grads = natural_gradients(p, p._natural_parameters)
    kl = P.subtract(q._log_normalizer(*q._natural_parameters), log_norm)
    for pp, qp, g in zip(params, q._natural_parameters, grads):
        kl = P.subtract(kl, sum_rightmost(P.multiply(P.subtract(qp, pp), g), len(q.event_shape)))
    return kl


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)
