"""``paddle.regularizer`` (Paddle 2.x): ``L1Decay(coeff)`` and ``L2Decay(coeff)``, pe's weight
decay regularizers (pe_cli/training/regularizer.py) under 2.x's argument name."""

from ..training import regularizer as _reg

__all__ = ["L1Decay", "L2Decay"]


class L1Decay(_reg.L1DecayRegularizer):
    """Adds coeff * sign(param) to the parameter's gradient."""

    def __init__(self, coeff=0.0):
        super().__init__(coeff)


class L2Decay(_reg.L2DecayRegularizer):
    """Adds coeff * param to the parameter's gradient."""

    def __init__(self, coeff=0.0):
        super().__init__(coeff)
