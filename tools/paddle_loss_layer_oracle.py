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
# probabilities with zeros (a log of 0: Paddle's -1e20), for cross_entropy(use_softmax=False)
PZ = np.array([[0.2, 0.5, 0.3], [0.0, 0.9, 0.1], [0.6, 0.0, 0.4], [0.25, 0.25, 0.5]], "float32")
SOFT = np.array([[0.1, 0.8, 0.1], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [0.2, 0.3, 0.5]], "float32")


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
    "KLDivLoss": case(lambda D, x, t: [D.nn.KLDivLoss("batchmean")(x, t)], x=X, t=P),
    "HuberLoss_smooth_l1": case(lambda D, x, y: [D.nn.functional.smooth_l1_loss(x, y, delta=0.5)], x=X, y=Y),
    "MarginRankingLoss": case(lambda D, x, y, t: [D.nn.MarginRankingLoss(0.25)(x, y, t)], x=X, y=Y, t=T * 2 - 1),
    "HingeEmbeddingLoss": case(lambda D, x, t: [D.nn.HingeEmbeddingLoss()(x, t)], x=X, t=T * 2 - 1),
    "SoftMarginLoss": case(lambda D, x, t: [D.nn.SoftMarginLoss()(x, t)], x=X, t=T * 2 - 1),
    "PoissonNLLLoss": case(lambda D, x, t: [D.nn.PoissonNLLLoss()(x, t)], x=X, t=P),
    "GaussianNLLLoss": case(lambda D, x, t, v: [D.nn.GaussianNLLLoss()(x, t, v)], x=X, t=Y, v=P),
    "MultiLabelSoftMarginLoss": case(lambda D, x, t: [D.nn.MultiLabelSoftMarginLoss()(x, t)], x=X, t=T),
    "log_loss": case(lambda D, p, t: [D.nn.functional.log_loss(p[:, :1], t[:, :1])], p=P, t=T),
    "sigmoid_focal_loss": case(lambda D, x, t: [D.nn.functional.sigmoid_focal_loss(x, t)], x=X, t=T),
    "dice_loss": case(
        lambda D, p, t: [D.nn.functional.dice_loss(D.nn.functional.softmax(p), D.cast(t, "int64"))],
        p=X,
        t=LABEL,
    ),
    "square_error_cost": case(lambda D, x, y: [D.nn.functional.square_error_cost(x, y)], x=X, y=Y),
    "CosineEmbeddingLoss": case(
        lambda D, x, y, t: [D.nn.CosineEmbeddingLoss(0.1)(x, y, t)], x=X, y=Y, t=np.array([1, -1, 1, -1], "int64")
    ),
    "TripletMarginLoss": case(lambda D, x, y, z: [D.nn.TripletMarginLoss()(x, y, z)], x=X, y=Y, z=P),
    "NLLLoss": case(lambda D, x, label: [D.nn.NLLLoss()(x, label.squeeze(-1))], x=X, label=LABEL),
    "Sequential_then_mean": case(lambda D, x: [D.nn.Sequential(D.nn.ReLU(), D.nn.Softmax())(x).mean()], x=X),
    "Tensor_sum": case(lambda D, x: [x.sum(), x.max()], x=X),
    # F.cross_entropy(use_softmax=False) builds softmax_with_cross_entropy(use_softmax=False): pe composed a log
    # (a label's probability of 0 gave inf, a soft label's 0 * log(0) NaN, where Paddle's loss is 1e20 * label)
    "cross_entropy_probabilities": case(
        lambda D, p, label: [
            D.nn.functional.cross_entropy(p, label, use_softmax=False, reduction="none"),
            D.nn.functional.cross_entropy(p, label, use_softmax=False, ignore_index=0),
        ],
        p=PZ[[0, 3, 2, 0]],
        label=np.array([[1], [0], [2], [0]], "int64"),
    ),
    "cross_entropy_probabilities_zero": case(
        lambda D, p, label: [D.nn.functional.cross_entropy(p, label, use_softmax=False, reduction="sum")],
        grad=False,
        p=PZ,
        label=np.array([[1], [0], [1], [2]], "int64"),
    ),
    "cross_entropy_probabilities_soft": case(
        lambda D, p, s: [D.nn.functional.cross_entropy(p, s, soft_label=True, use_softmax=False, reduction="sum")],
        p=PZ[[0, 3, 3, 0]],
        s=SOFT,
    ),
    "cross_entropy_probabilities_soft_zero": case(
        lambda D, p, s: [D.nn.functional.cross_entropy(p, s, soft_label=True, use_softmax=False, reduction="none")],
        grad=False,
        p=PZ,
        s=SOFT,
    ),
    "cross_entropy_probabilities_axis0": case(
        lambda D, p, label: [D.nn.functional.cross_entropy(p, label, use_softmax=False, axis=0)],
        p=PZ[[0, 3, 2, 0]].T.copy(),
        label=np.array([[1, 0, 2, 0]], "int64"),
    ),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle_loss_layer_oracle.py")
