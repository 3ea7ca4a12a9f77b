"""``paddle.nn.functional`` for static graphs: activations, convolutions, pools, normalizations,
dropouts, losses and the common functions, with Paddle 2.6.2's names and parameter names, each
lowering to pe's registered ops (see the modules' docstrings for what pe's ops cannot do)."""

from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .loss_regression import *  # noqa: F401,F403
from .loss_margin import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from ...tensor_create import diag_embed  # noqa: F401  (in Paddle 2.6 too, not in its __all__)

# Paddle 2.6's modules of paddle.nn.functional whose functions pe keeps in this package's other files
# (``pe fluid`` imports ``paddle.nn.functional.vision`` as this package: fluid/paddle2_modules.py); as
# attributes too, as Paddle's package has them (``paddle.nn.functional.vision.affine_grid``)
_KEPT_HERE = ("distance", "extension", "input", "transformer", "vision")


def __getattr__(name):
    if name in _KEPT_HERE:
        import sys

        return sys.modules[__name__]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
