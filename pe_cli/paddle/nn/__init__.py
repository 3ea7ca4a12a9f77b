"""``paddle.nn`` for static graphs (``paddle.enable_static()``): ``Layer`` (layer.py), the containers,
the layer classes (layers/), ``paddle.nn.functional``, ``paddle.nn.initializer`` and the gradient
clips. Every layer builds pe's registered ops into the current program; its parameters live in the
current main and startup programs and their values in the scope. ``BeamSearchDecoder`` is Fluid's
(pe_cli/layers/decode.py); ``dynamic_decode`` its loop as Paddle 2.x runs it (decode.py)."""

from ...layers.decode import BeamSearchDecoder  # noqa: F401 (Fluid's, the same in 2.x)
from .decode import dynamic_decode  # noqa: F401
from . import functional, initializer  # noqa: F401
from .clip import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .layer import Layer  # noqa: F401
from .layers import *  # noqa: F401,F403
