"""Fluid 1.8's ``layers.lstm``: the cudnn_lstm op (ops/lstm_cudnn.py) over a padded time-major batch,
its weights one flat parameter in cuDNN's layout, as Fluid builds it. Dropout between layers while
training is cuDNN's random stream, which the op cannot reproduce: that network is built as cells
stepped by StaticRNNs with dropout ops between the layers (rnn_api.unrolled_lstm) instead."""

from ..base.dtypes import VarType
from ..ops.lstm_cudnn import weight_size
from .checks import FLOAT32_64, check_variable_and_dtype, fluid_checks
from .helper import LayerHelper
from .rnn_api import check_lstm, unrolled_lstm

__all__ = ["lstm"]


def _cudnn_lstm(
    input,
    init_h,
    init_c,
    max_len,
    hidden_size,
    num_layers,
    dropout_prob,
    is_bidirec,
    is_test,
    name,
    default_initializer,
    seed,
):
    """lstm's one cudnn_lstm op over all the layers, with its one weight parameter."""
    helper = LayerHelper("cudnn_lstm", name=name)
    dirs = 2 if is_bidirec else 1
    weight = helper.create_parameter(
        None,
        [weight_size(input.shape[-1], hidden_size, num_layers, dirs)],
        input.dtype,
        default_initializer=default_initializer,
    )
    out, last_h, last_c = (helper.create_variable_for_type_inference(input.dtype) for _ in range(3))
    cache = helper.create_variable(persistable=True, type=VarType.RAW, stop_gradient=True)
    helper.append_op(
        "cudnn_lstm",
        {"Input": [input], "InitH": [init_h], "InitC": [init_c], "W": [weight], "Cache": [cache]},
        {"Out": [out], "last_h": [last_h], "last_c": [last_c]},
        {
            "max_len": max_len,
            "is_bidirec": is_bidirec,
            "input_size": input.shape[-1],
            "hidden_size": hidden_size,
            "num_layers": num_layers,
            "is_test": is_test,
            "dropout_prob": dropout_prob,
            "seed": seed,
        },
    )
    return out, last_h, last_c


@fluid_checks(
    "lstm",
    input=("float32", "float64"),
    init_h=("float32", "float64"),
    init_c=("float32", "float64"),
    max_len=int,
    hidden_size=int,
    num_layers=int,
)
def lstm(
    input,
    init_h,
    init_c,
    max_len,
    hidden_size,
    num_layers,
    dropout_prob=0.0,
    is_bidirec=False,
    is_test=False,
    name=None,
    default_initializer=None,
    seed=-1,
):
    """Fluid's cudnn LSTM on a padded time-major batch: ``input`` [seq_len, batch, input_size],
    ``init_h``/``init_c`` [num_layers * (2 if is_bidirec else 1), batch, hidden_size] (layer l,
    direction d at l * directions + d). Returns (rnn_out [seq_len, batch, hidden_size * directions],
    last_h, last_c) with init_h's shape. The weights are one parameter (``cudnn_lstm_0.w_0``, or
    ``<name>.w_0``) of cuDNN's layout (ops/lstm_cudnn.py), initialized by ``default_initializer`` or
    Xavier, as Fluid's."""
    for what, var in (("input", input), ("init_h", init_h), ("init_c", init_c)):
        check_variable_and_dtype(var, what, FLOAT32_64, "lstm")
    check_lstm(input, init_h, init_c, max_len, hidden_size, num_layers)
    if dropout_prob > 0 and not is_test and num_layers > 1:  # dropout between the layers: one op each
        build = unrolled_lstm
    else:
        build = _cudnn_lstm
    return build(
        input,
        init_h,
        init_c,
        max_len,
        hidden_size,
        num_layers,
        dropout_prob,
        is_bidirec,
        is_test,
        name,
        default_initializer,
        seed,
    )
