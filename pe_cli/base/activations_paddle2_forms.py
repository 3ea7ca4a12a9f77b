"""Where Paddle 2.x's activation formulas differ from Fluid 1.8's (the activation table's,
pe_cli/base/activations.py) for some attribute values. A leaf: numpy only."""

import numpy as np


# Where Paddle 2.x's formula differs from Fluid 1.8's (activations.TABLE's) for some attribute values: op ->
# (differs(attrs), Paddle 2.x's forward(x, attrs), its derivative(x or Out, dOut, attrs) or None where the
# table's is Paddle 2.x's too). In a program that follows Paddle 2.6 (``Operator.paddle2``, a kernel's ``ctx.paddle2``) the
# kernels compute these (checked on the 2.6.2 oracle: tests/data/paddle26_saved/static_activations_2x).
PADDLE2_FORMS = {
    # X where X > 0, else alpha X (Fluid: max(X, alpha X), other for alpha > 1); the gradient dOut where X >= 0,
    # alpha dOut where X < 0, 0 for a NaN (Paddle 2.6's reads X; Fluid's reads Out: alpha at 0). The grad op reads
    # Out, whose sign is X's for alpha > 0 (for alpha <= 0 the table's, Fluid's, as before)
    "leaky_relu": (
        lambda a: a["alpha"] > 0,
        lambda x, a: np.where(x > 0, x, x * x.dtype.type(a["alpha"])),
        lambda out, d, a: d * np.where(out >= 0, d.dtype.type(1), np.where(out < 0, d.dtype.type(a["alpha"]), 0)),
    ),
    # |X|; the gradient 0 where X is 0 whatever dOut (Paddle 2.6's AbsGradFunctor selects; Fluid 1.8's dOut *
    # sign(X) makes an inf or NaN dOut NaN there: sqrt(abs(x)) at 0)
    "abs": (
        lambda a: True,
        lambda x, a: np.abs(x),
        lambda x, d, a: np.where(x == 0, np.zeros((), np.result_type(d, np.sign(x[:0]))), d * np.sign(x)),
    ),
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

# the grad ops Paddle 2.6 gives X where the table's (Fluid 1.8's) read Out: in a program that follows Paddle 2.6 pe's
# grad op is given X too (an optional slot) and computes Paddle 2.x's derivative of it, for every attribute value
# (leaky_relu with alpha <= 0: Out's sign is not X's)
GRAD_READS_X = frozenset({"leaky_relu"})

# where only the gradient differs: the table's forward is Paddle 2.x's for these attributes (its loops kept)
_SAME_FORWARD = {"leaky_relu": lambda a: a["alpha"] <= 1, "abs": lambda a: True}


def computes_paddle2(name, attrs, given_x=False):
    """Whether op ``name`` (an activation or its ``_grad``) with ``attrs`` computes PADDLE2_FORMS' form in a
    program that follows Paddle 2.6, rather than the table's (a grad op ``given_x``: of GRAD_READS_X, always)."""
    forward = name.removesuffix("_grad")
    if given_x and name != forward and forward in GRAD_READS_X:
        return True
    form = PADDLE2_FORMS.get(forward)
    if form is None or not form[0](attrs):
        return False
    return name != forward or not _SAME_FORWARD.get(forward, lambda a: False)(attrs)


def prelu_mode(attrs):
    """prelu's mode, "channel_last" for 'channel' with data_format NHWC (Paddle 2.x's: X's last dim)."""
    channel_last = attrs["mode"] == "channel" and attrs.get("data_format") == "NHWC"
    return "channel_last" if channel_last else attrs["mode"]
