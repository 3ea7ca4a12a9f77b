"""Paddle 2.6.2 as the oracle of the shape of a reduction to one value that a ``paddle.*`` call builds
where pe's own code sits between the user's call and the ``paddle.*`` function: ``paddle.nn``'s loss
layers called as Layers (``paddle.nn.CrossEntropyLoss()(x, y)``: the Layer's ``__call__`` and
``forward`` are pe's, the loss is ``paddle.nn.functional``'s), a ``paddle.nn.Sequential`` ending in a
reduction and a Tensor method. Each case records the values (0-D in Paddle 2.6), their dtype and shape
and the float inputs' gradients into tests/data/paddle_oracle/loss_layers.json, with tools/
paddle_function_oracle.py's runner; tests/paddle/test_paddle_function_oracle.py replays them on pe.

    /work/p26/bin/python tools/paddle_loss_layer_oracle.py    # paddlepaddle==2.6.2"""

import importlib.util
import os

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "paddle_function_oracle", os.path.join(_HERE, "paddle_function_oracle.py")
)
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
case = base._case

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "loss_layers.json")

X = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75], [-2.0, 1.0, 0.125], [0.0, -0.5, 1.75]], "float32")
Y = np.array([[1.0, 0.5, -1.5], [0.25, 2.0, 0.0], [-1.0, 1.5, 0.5], [0.75, -0.25, 1.0]], "float32")
P = np.array([[0.2, 0.7, 0.9], [0.4, 0.1, 0.6], [0.8, 0.3, 0.5], [0.35, 0.65, 0.05]], "float32")
T = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]], "float32")
LABEL = np.array([[2], [0], [1], [2]], "int64")


def _layer(name, *args):
    return lambda D, **ins: [getattr(D.nn, name)(*args)(*ins.values())]


CASES = {
    "CrossEntropyLoss": case(_layer("CrossEntropyLoss"), x=X, label=LABEL),
    "CrossEntropyLoss_sum": case(_layer("CrossEntropyLoss", None, -100, "sum"), x=X, label=LABEL),
    "MSELoss": case(_layer("MSELoss"), x=X, y=Y),
    "L1Loss": case(_layer("L1Loss"), x=X, y=Y),
    "SmoothL1Loss": case(_layer("SmoothL1Loss"), x=X, y=Y),
    "BCELoss": case(_layer("BCELoss"), p=P, t=T),  # (no gradient of the label: the bce_loss op)
    "BCELoss_weight_none": case(lambda D, p, t, w: [D.nn.BCELoss(w, "none")(p, t)], p=P, t=T, w=Y[0]),
    "BCEWithLogitsLoss": case(_layer("BCEWithLogitsLoss"), x=X, t=T),
    "NLLLoss": case(lambda D, x, label: [D.nn.NLLLoss()(x, label.squeeze(-1))], x=X, label=LABEL),
    "Sequential_then_mean": case(lambda D, x: [D.nn.Sequential(D.nn.ReLU(), D.nn.Softmax())(x).mean()], x=X),
    "Tensor_sum": case(lambda D, x: [x.sum(), x.max()], x=X),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle_loss_layer_oracle.py")
