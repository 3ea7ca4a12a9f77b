"""The activation table's rectifiers and shrinks (pe_cli/base/activations.py): relu and its variants
(leaky_relu, elu, relu6, selu, brelu, soft_relu, thresholded_relu, hard_swish) and hard_shrink and
softshrink, as Fluid 1.8 computes them. A leaf, as the table."""

import math

import numpy as np

from .activations_row import Activation, Param, c, _number, real_number


A = Activation
RECTIFIERS = (
    A(
        "relu",
        "Out = max(X, 0).",
        reads="Out",
        dtypes=None,
        cpu_loop="relu",
        forward=lambda x: np.maximum(x, 0, dtype=x.dtype),
        derivative=lambda o, d: d * (o > 0),
        scalar_forward=lambda x: x if x > 0 else 0 * x,
        scalar_derivative=lambda o, d: d if o > 0 else 0 * d,
    ),
    # Fluid 1.8's formulas, which differ from the usual ones for alpha > 1 or < 0 (leaky_relu) and
    # alpha < 0 (elu); the gradient of leaky_relu is 1 where Out > 0, else alpha, as Fluid's
    A(
        "leaky_relu",
        "Out = max(X, alpha * X) (X where X > 0, alpha * X elsewhere, for alpha in [0, 1]).",
        params=(_number("alpha", 0.02),),
        reads="Out",
        forward=lambda x, a: np.fmax(x, x * a),
        derivative=lambda o, d, a: np.where(o > 0, d, d * a),
        scalar_forward=lambda x, a: max(x, x * a),
        scalar_derivative=lambda o, d, a: d if o > 0 else d * a,
    ),
    A(
        "elu",
        "Out = max(X, 0) + min(alpha * (exp(X) - 1), 0) (for alpha >= 0: X where X > 0, alpha * (exp(X) - "
        "1) elsewhere).",
        params=(_number("alpha", 1.0),),
        # exp of positive values only where alpha < 0 needs them: no overflow otherwise
        forward=lambda x, a: np.maximum(x, 0) + np.minimum(a * np.expm1(x if a < 0 else np.minimum(x, 0)), 0),
        derivative=lambda x, d, a: np.where(x > 0, d, d * a * np.exp(np.minimum(x, 0))),
        scalar_forward=lambda x, a: max(x, 0 * x) + min(a * math.expm1(x if a < 0 else min(x, 0)), 0 * x),
        scalar_derivative=lambda x, d, a: d if x > 0 else d * a * math.exp(min(x, 0)),
    ),
    A(
        "relu6",
        "Out = min(max(X, 0), threshold).",
        reads="Out",
        params=(_number("threshold", 6.0),),
        forward=lambda x, t: np.clip(x, c(x, 0), t),
        derivative=lambda o, d, t: d * ((o > 0) & (o < t)),
        scalar_forward=lambda x, t: 0 * x if x < 0 else (t if x > t else x),
        scalar_derivative=lambda o, d, t: d if (o > 0 and o < t) else 0 * d,
    ),
    A(
        "selu",
        "Out = scale * X where X > 0, scale * alpha * (exp(X) - 1) elsewhere.",
        params=(_number("scale", 1.0507009873554805), _number("alpha", 1.6732632423543772)),
        forward=lambda x, s, a: np.where(x > 0, x * s, (np.exp(x) - 1) * (a * s)),
        reads="Out",  # (Fluid's: from Out)
        derivative=lambda o, d, s, a: np.where(o > 0, d * s, d * (o + a * s)),
        scalar_forward=lambda x, s, a: x * s if x > 0 else (math.exp(x) - 1) * (a * s),
        scalar_derivative=lambda o, d, s, a: d * s if o > 0 else d * (o + a * s),
    ),
    A(
        "brelu",
        "Out = min(max(X, t_min), t_max).",
        params=(_number("t_min", 0.0), _number("t_max", 24.0)),
        forward=lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
        derivative=lambda x, d, lo, hi: d * ((x > lo) & (x < hi)),
        scalar_forward=lambda x, lo, hi: min(max(x, lo), hi),
        scalar_derivative=lambda x, d, lo, hi: d if (x > lo and x < hi) else 0 * d,
    ),
    # Fluid's gradient from Out: dOut (1 - exp(-Out)) where -threshold < Out < threshold (its mask, on Out)
    A(
        "soft_relu",
        "Out = log(1 + exp(min(max(X, -threshold), threshold))); the gradient is Fluid's: Out@GRAD * "
        "(1 - exp(-Out)) where -threshold < Out < threshold, else 0.",
        params=(_number("threshold", 40.0),),
        reads="Out",
        forward=lambda x, t: np.log1p(np.exp(np.minimum(np.maximum(x, -t), t))),
        derivative=lambda o, d, t: d * -np.expm1(-o) * ((o > -t) & (o < t)),
        scalar_forward=lambda x, t: math.log1p(math.exp(min(max(x, -t), t))),
        scalar_derivative=lambda o, d, t: d * -math.expm1(-o) if (o > -t and o < t) else 0 * d,
    ),
    A(
        "thresholded_relu",
        "Out = X where X > threshold, 0 elsewhere.",
        params=(_number("threshold", 1.0),),
        forward=lambda x, t: np.where(x > t, x, x * 0),
        derivative=lambda x, d, t: d * (x > t),
        scalar_forward=lambda x, t: x if x > t else 0 * x,
        scalar_derivative=lambda x, d, t: d if x > t else 0 * d,
    ),
    # hard_shrink and softshrink as Fluid sums their two sides (both hold where the threshold is < 0)
    A(
        "hard_shrink",
        "Out = X (X < -threshold) + X (X > threshold): X where |X| > threshold >= 0, else 0.",
        params=(_number("threshold", 0.5),),
        forward=lambda x, t: x * (x < -t) + x * (x > t),
        derivative=lambda x, d, t: d * (x < -t) + d * (x > t),
        scalar_forward=lambda x, t: (x if x < -t else 0 * x) + (x if x > t else 0 * x),
        scalar_derivative=lambda x, d, t: (d if x < -t else 0 * d) + (d if x > t else 0 * d),
    ),
    A(
        "softshrink",
        "Out = (X - lambda)(X > lambda) + (X + lambda)(X < -lambda): 0 within [-lambda, lambda] "
        "for lambda >= 0 (the layer's keyword is alpha, as Fluid's).",
        params=(Param("lambda", 0.5, real_number, "a number", keyword="alpha"),),
        forward=lambda x, t: (x - t) * (x > t) + (x + t) * (x < -t),
        derivative=lambda x, d, t: d * (x > t) + d * (x < -t),
        scalar_forward=lambda x, t: (x - t if x > t else 0 * x) + (x + t if x < -t else 0 * x),
        scalar_derivative=lambda x, d, t: (d if x > t else 0 * d) + (d if x < -t else 0 * d),
    ),
    A(
        "hard_swish",
        "Out = X * min(max(X + offset, 0), threshold) / scale.",
        params=(_number("threshold", 6.0), _number("scale", 6.0), _number("offset", 3.0)),
        forward=lambda x, t, s, o: x * np.minimum(np.maximum(x + o, c(x, 0)), t) / s,
        derivative=lambda x, d, t, s, o: d * np.where(x + o >= t, t / s, np.where(x + o > 0, (x * 2 + o) / s, x * 0)),
        scalar_forward=lambda x, t, s, o: x * min(max(x + o, 0), t) / s,
        scalar_derivative=lambda x, d, t, s, o: (
            d * t / s if x + o >= t else (d * (2 * x + o) / s if x + o > 0 else 0 * d)
        ),
    ),
)
del A
