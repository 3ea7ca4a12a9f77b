"""Fluid 1.8's ``layers.rnn`` submodule: its recurrent layers (dynamic_lstm, lstm_unit: lstm.py;
dynamic_gru, gru_unit: gru.py; dynamic_lstmp: lstmp.py), the cell API (rnn_cells.py, rnn_api.py) and
beam search decoding (beam_search.py, decode.py, decode_helpers.py), which pe defines in those modules.
``from paddle.fluid.layers.rnn import GRUCell`` works as in Fluid, while the package's own ``rnn`` is the
function (rnn_api.py; pe_cli/layers/__init__.py)."""

from .beam_search import beam_search, beam_search_decode
from .decode import BeamSearchDecoder, Decoder, dynamic_decode
from .decode_helpers import BasicDecoder, DecodeHelper, GreedyEmbeddingHelper, SampleEmbeddingHelper, TrainingHelper
from .gru import dynamic_gru, gru_unit
from .lstm import dynamic_lstm, lstm_unit
from .lstm_cudnn import lstm
from .lstmp import dynamic_lstmp
from .rnn_api import rnn
from .rnn_cells import GRUCell, LSTMCell, RNNCell

__all__ = [
    "BasicDecoder",
    "BeamSearchDecoder",
    "DecodeHelper",
    "Decoder",
    "GRUCell",
    "GreedyEmbeddingHelper",
    "LSTMCell",
    "RNNCell",
    "SampleEmbeddingHelper",
    "TrainingHelper",
    "beam_search",
    "beam_search_decode",
    "dynamic_decode",
    "dynamic_gru",
    "dynamic_lstm",
    "dynamic_lstmp",
    "gru_unit",
    "lstm",
    "lstm_unit",
    "rnn",
]
