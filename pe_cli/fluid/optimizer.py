"""``paddle.fluid.optimizer``: pe's optimizers under Fluid's names."""

from ..training.averaging import *  # noqa: F401,F403
from ..training.averaging import __all__ as _averaging
from ..training.optimizer import *  # noqa: F401,F403
from ..training.optimizer import __all__ as _plain
from ..training.optimizer_adaptive import *  # noqa: F401,F403
from ..training.optimizer_adaptive import __all__ as _adaptive
from ..training.optimizer_wrappers import *  # noqa: F401,F403
from ..training.optimizer_wrappers import __all__ as _wrappers
from ..training.regularizer import append_regularization_ops  # noqa: F401 -- Fluid's optimizer module has it too

__all__ = list(_plain) + list(_adaptive) + list(_averaging) + list(_wrappers)
