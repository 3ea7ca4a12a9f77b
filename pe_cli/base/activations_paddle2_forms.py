"""Where Paddle 2.x's activation formulas differ from Fluid 1.8's (the activation table's,
pe_cli/base/activations.py) for some attribute values. A leaf: numpy only."""

import numpy as np


# Where Paddle 2.x's formula differs from Fluid 1.8's (activations.TABLE's) for some attribute values: op ->
# (differs(attrs), Paddle 2.x's forward(x, attrs), its derivative(x or Out, dOut, attrs) or None where the
# table's is Paddle 2.x's too). In a program that follows Paddle 2.6 (``Operator.paddle2``, a kernel's ``ctx.paddle2``) the
# kernels compute these (checked on the 2.6.2 oracle: tests/data/paddle26_saved/static_activations_2x).
PADDLE2_FORMS = {
    # X where X > 0, else alpha X (Fluid: max(X, alpha X), other for alpha > 1); the table's gradient reads Out,
    # whose sign is X's for alpha > 0
    "leaky_relu": (lambda a: a["alpha"] > 1, lambda x, a: np.where(x > 0, x, x * x.dtype.type(a["alpha"])), None),
    # X where X > 0, else alpha (e^X - 1) (Fluid: max(X, 0) + min(alpha (e^X - 1), 0), other for alpha < 0)
    "elu": (
        lambda a: a["alpha"] < 0,
        lambda x, a: np.where(x > 0, x, x.dtype.type(a["alpha"]) * np.expm1(np.minimum(x, 0))),
        None,
    ),
    # X where X < -threshold or X > threshold, once (Fluid sums the two sides: X twice between them for threshold < 0)
    "hard_shrink": (
        lambda a: a["threshold"] < 0,
        lambda x, a: x * ((x < -a["threshold"]) | (x > a["threshold"])),
        lambda x, d, a: d * ((x < -a["threshold"]) | (x > a["threshold"])),
    ),
}
