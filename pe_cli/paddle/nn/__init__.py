"""``paddle.nn`` for static graphs (``paddle.enable_static()``): ``Layer`` (layer.py), the containers,
the layer classes (layers/), ``paddle.nn.functional``, ``paddle.nn.initializer`` and the gradient
clips. Every layer builds pe's registered ops into the current program; its parameters live in the
current main and startup programs and their values in the scope. Not here yet: recurrent layers
(LSTM, GRU, SimpleRNN, RNN, BiRNN and their cells), MultiHeadAttention and the Transformer layers,
3-D convolutions (pe has no conv3d op yet), and the layers over ops pe lacks (MaxUnPool*, Fold,
Unfold, CTCLoss, RNNTLoss, HSigmoidLoss, SpectralNorm, PixelUnshuffle, MultiMarginLoss)."""
from . import functional, initializer  # noqa: F401
from .clip import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .layer import Layer  # noqa: F401
from .layers import *  # noqa: F401,F403
