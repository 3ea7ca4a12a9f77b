"""inplace_abn's and inplace_abn_grad's meta rules (structured kernels, shapes/structured.py; the out-kernels:
kernels/cpu/normalization_activated.py), made of batch_norm's (shapes/normalization.py): "act", batch_norm's
variant (``Meta.args[0]``, its Meta: its outputs, aliases, scratch, fresh) and the activation written over Y (elu's
exp in the scratch "elu"); the gradient "undo", the normalized value and X recovered from Y, then batch_norm_grad's
variant (``Meta.args[0]``) on them, ``Meta.args[1]``: whether the running Mean and Variance stand for the saved
statistics (given, with the running statistics)."""

import numpy as np

from .normalization import batch_norm_grad_meta, batch_norm_meta, running_stats
from .structured import Meta, Spec


def inplace_abn_meta(attrs, ins, facts):
    bn = batch_norm_meta(attrs, ins, facts)
    scratch = dict(bn.scratch)
    if attrs["activation"] == "elu":
        scratch["elu"] = bn.outputs["Y"]
    return Meta(bn.outputs, "act", scratch=scratch, aliases=bn.aliases, fresh=bn.fresh, args=(bn,))


def _undone_dtype(y, dy, attrs):
    """The dtype of Y@GRAD through the activation's gradient (numpy's on arrays of no element)."""
    y, dy, alpha = np.zeros(0, y.dtype), np.zeros(0, dy.dtype), np.dtype(y.dtype).type(attrs["alpha"])
    kind = attrs["activation"]
    if kind == "leaky_relu":
        return np.where(y > 0, dy, alpha * dy).dtype
    if kind == "elu":
        return np.where(y > 0, dy, dy * (y + alpha)).dtype
    return dy.dtype


def inplace_abn_grad_meta(attrs, ins, facts):
    y, dy, scale = ins["Y"], ins["Y@GRAD"], ins["Scale"]
    running = running_stats(attrs)
    given = (running and ins.get("Mean") is not None, running and ins.get("Variance") is not None)
    stats = ins["Mean"] if given[0] else ins["SavedMean"]
    bn_ins = {
        "X": Spec(tuple(y.shape), np.dtype(y.dtype)),
        "Scale": scale,
        "Y@GRAD": Spec(tuple(dy.shape), _undone_dtype(y, dy, attrs)),
        "SavedMean": Spec(tuple(stats.shape), np.dtype(y.dtype)),
        "SavedVariance": Spec(tuple(stats.shape), np.dtype(y.dtype)),
    }
    bn = batch_norm_grad_meta(attrs, bn_ins, facts)
    return Meta(bn.outputs, "undo", scratch=bn.scratch, fresh=bn.fresh, args=(bn, given))
