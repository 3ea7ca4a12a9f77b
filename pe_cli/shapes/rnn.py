"""The meta rules of Paddle 2.x's rnn op and its gradient (ops/rnn.py): from the attributes and the shapes and
dtypes of Input, PreState and WeightList, Out [T, N, directions * hidden], the last states (LSTM: h and c; the
others: h) [layers * directions, N, hidden] in Input's dtype, Reserve and DropoutState empty, and the gradients of
Input, PreState and WeightList of their shapes. The out-kernels (kernels/cpu/rnn.py) walk the steps in numpy and
hand over the arrays they make (a ``fresh`` variant). Dropout between layers in training is refused here, as the
op's kernel refused it (Paddle draws its mask)."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_UINT8 = np.dtype(np.uint8)


def _checked(attrs):
    """The mode (one of GATES) and the directions, after the refusals of the op's kernel."""
    mode = attrs["mode"]
    if mode not in GATES:
        raise PeError(f"rnn: mode={mode!r} is not one of {sorted(GATES)}")
    if attrs["dropout_prob"] > 0 and not attrs["is_test"]:
        raise PeError(
            f"rnn: dropout_prob={attrs['dropout_prob']} between layers in training (is_test=False) is "
            f"not computed by pe (its random mask is Paddle's); run with is_test=True or dropout_prob=0"
        )
    return mode, 2 if attrs["is_bidirec"] else 1


def _states(attrs, ins, mode, dirs, dtype, width=None):
    """A (shape, dtype) per state (LSTM: two): [layers * directions] of PreState's rows (its batch, and its width
    or ``width``)."""
    rows = tuple(ins["PreState"][0].shape)
    shape = (attrs["num_layers"] * dirs, rows[1], rows[2] if width is None else width)
    return [(shape, dtype)] * (2 if mode == "LSTM" else 1)


def rnn_meta(attrs, ins, facts):
    """rnn: Out [T, N, directions * width], State, Reserve [0] (Input's dtype), DropoutState [0] (uint8); fresh."""
    mode, dirs = _checked(attrs)
    x = ins["Input"]
    dtype = np.dtype(x.dtype)
    states = _states(attrs, ins, mode, dirs, dtype)
    out = ((x.shape[0], states[0][0][1], dirs * states[0][0][2]), dtype)
    outputs = {"Out": out, "State": states, "Reserve": ((0,), dtype), "DropoutState": ((0,), _UINT8)}
    return Meta(outputs, "fresh", fresh=True)


def rnn_grad_meta(attrs, ins, facts):
    """rnn_grad: Input@GRAD of Input's shape and dtype, PreState@GRAD the states' (Input's dtype), WeightList@GRAD
    each weight's shape and dtype; fresh."""
    mode, dirs = _checked(attrs)
    x = ins["Input"]
    dtype = np.dtype(x.dtype)
    outputs = {
        "Input@GRAD": (tuple(x.shape), dtype),
        "PreState@GRAD": _states(attrs, ins, mode, dirs, dtype, attrs["hidden_size"]),
        "WeightList@GRAD": [(tuple(w.shape), np.dtype(w.dtype)) for w in ins["WeightList"]],
    }
    return Meta(outputs, "fresh", fresh=True)
