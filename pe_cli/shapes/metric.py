"""The meta rules (shapes/structured.py) of the metric ops (ops/metric.py: accuracy, auc, mean_iou,
positive_negative_pair, precision_recall), whose CPU out-kernels (kernels/cpu/metric.py) count over the batch
with numpy and write the few values they make into the buffers they are handed (the "counts" variant).
accuracy's and auc's one value is 0-D where the op builds Paddle 2.x's result (``facts.zero_dim``), else [1]."""

import numpy as np

from ..base.errors import PeError
from .reduction import scalar_shape
from .structured import Meta

_F32, _F64, _I32, _I64 = (np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))


def _counts(outputs):
    return Meta({slot: (tuple(shape), np.dtype(dtype)) for slot, (shape, dtype) in outputs.items()}, "counts")


def accuracy_meta(attrs, ins, facts):
    one = scalar_shape(facts.zero_dim)
    return _counts({"Accuracy": (one, _F32), "Correct": (one, _I32), "Total": (one, _I32)})


def auc_meta(attrs, ins, facts):
    pred = tuple(ins["Predict"].shape)
    if len(pred) != 2 or pred[1] not in (1, 2):
        raise PeError(
            f"auc: Predict {list(pred)} must be [N, 2] (the positive class's probability last) or "
            f"[N, 1]: auc is for binary classification"
        )
    n, steps = attrs["num_thresholds"], attrs["slide_steps"]
    size = n + 1
    stat = ((steps + 1) * size + 1,) if steps else (1, size)
    return _counts(
        {"AUC": (scalar_shape(facts.zero_dim), _F64), "StatPosOut": (stat, _I64), "StatNegOut": (stat, _I64)}
    )


def _numel(spec):
    return int(np.prod(spec.shape, dtype=np.int64))


def mean_iou_meta(attrs, ins, facts):
    """OutWrong and OutCorrect: a count per class, with each InWrongs / InCorrects added (numpy's broadcast)."""
    n = attrs["num_classes"]
    wrong = np.broadcast_shapes((n,), *((_numel(v),) for v in ins.get("InWrongs") or []))
    correct = np.broadcast_shapes((n,), *((_numel(v),) for v in ins.get("InCorrects") or []))
    return _counts({"OutMeanIou": ((1,), _F32), "OutWrong": (wrong, _I32), "OutCorrect": (correct, _I32)})


def positive_negative_pair_meta(attrs, ins, facts):
    dt = ins["Score"].dtype
    return _counts({slot: ((1,), dt) for slot in ("PositivePair", "NegativePair", "NeutralPair")})


def precision_recall_meta(attrs, ins, facts):
    n = attrs["class_number"]
    return _counts(
        {"BatchMetrics": ((6,), _F64), "AccumMetrics": ((6,), _F64), "AccumStatesInfo": ((n, 4), ins["MaxProbs"].dtype)}
    )
