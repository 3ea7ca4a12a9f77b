"""identity_loss's kernels (numpy), structured kernels (meta rules: shapes/loss_identity.py): reduction 2 passes X
(and Out@GRAD) through as the rule's alias, nothing computed; 0 and 1 reduce with numpy (fresh) and fill X@GRAD.
The kernels by name (CUDA's host ops) are the rule and out-kernel through kernels/structured.adapter."""

import numpy as np

from ...shapes.loss_identity import identity_loss_grad_meta, identity_loss_meta
from ..structured import adapter, fresh_kernel
from .launches import by_variant


def _through(ins, outs, attrs, meta):
    """reduction 2: the output is its input (the rule's alias)."""


def _reduced(ins, attrs):
    x, r = ins["X"], attrs["reduction"]
    return {"Out": np.asarray(x.sum() if r == 0 else x.mean(), dtype=x.dtype).reshape(())}


def _grad_fill(ins, outs, attrs, meta):
    x, d, r = ins["X"], ins["Out@GRAD"], attrs["reduction"]
    np.copyto(outs["X@GRAD"], d.reshape(-1)[0] / (x.size if r == 1 else 1), casting="unsafe")  # (np.full's)


IDENTITY_LOSS = by_variant(
    "identity_loss_out", None, through=_through, numpy=fresh_kernel(_reduced, "identity_loss_sum")
)
IDENTITY_LOSS_GRAD = by_variant("identity_loss_grad_out", None, through=_through, fill=_grad_fill)
identity_loss = adapter(identity_loss_meta, IDENTITY_LOSS, "identity_loss")
identity_loss_grad = adapter(identity_loss_grad_meta, IDENTITY_LOSS_GRAD, "identity_loss_grad")
