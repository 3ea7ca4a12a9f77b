"""``paddle.distribution`` (Paddle 2.6.2's) in static programs: the distributions (Bernoulli, Beta,
Categorical, Cauchy, Dirichlet, Geometric, Gumbel, Independent, Laplace, LogNormal, Multinomial, Normal,
TransformedDistribution, Uniform; their bases Distribution and ExponentialFamily), the transforms, and
kl_divergence / register_kl: each method builds the ops that compute it, with Paddle 2.6.2's formulas,
shapes and argument checks; samples draw from pe's random ops (pe's generator, not Paddle's)."""

from . import transform
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential_family import ExponentialFamily
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lognormal import LogNormal
from .multinomial import Multinomial
from .normal import Normal
from .transform import *  # noqa: F401,F403
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Cauchy",
    "Dirichlet",
    "Distribution",
    "ExponentialFamily",
    "Multinomial",
    "Normal",
    "Uniform",
    "kl_divergence",
    "register_kl",
    "Independent",
    "TransformedDistribution",
    "Laplace",
    "LogNormal",
    "Gumbel",
    "Geometric",
] + list(transform.__all__)
