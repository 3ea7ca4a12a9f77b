"""A planned step's launches of conv2d and conv2d_grad where their Meta chose oneDNN ("onednn": float32, enough
channels, the library loaded; kernels/cpu/convolution.py runs it op by op): the plans the out-kernel runs for these
shapes and the device's share of the cores, bound once (runtime/onednn_prepared.py), run by _onednn_loops.run
without the GIL. The convolution of the op's own geometry only (no relu before it, no mapped filter), as
convolution.py's direct calls; None where oneDNN rejects a plan (the op runs as a Python launch, its out-kernel,
whose own fallback then runs)."""

import numpy as np

from ...shapes.conv2d import ONEDNN
from .launches import Launch, one
from .runtime import onednn
from .runtime.onednn_api import DIFF_DST, DIFF_SRC, DIFF_WEIGHTS, DST, SRC, WEIGHTS
from .runtime.onednn_prepared import ARRAYS
from .runtime.loops import lazy

_loops = lazy("_onednn_loops")
_F32 = np.dtype(np.float32)


def _direct(meta, table, names):
    """True where the Meta chose oneDNN for the op's own convolution (no relu, no mapped filter), the library is
    loaded and every value is a float32 NCHW/OIHW array of the plan's."""
    conv = meta.args
    if meta.variant != ONEDNN or conv.relu or conv.regular is not None or onednn.library() is None:
        return False
    return all(n in table and table[n][1] == _F32 and len(table[n][0]) == 4 for n in names)


def _launch(runs, names, shapes, geo, writes):
    """The launch of oneDNN's ``runs`` over the arrays ``names`` (in the runs' array indices), or None."""
    bound = onednn.prepared(runs, shapes, geo)
    if bound is None:
        return None
    args = [("const", fn) for fn in bound.functions]
    args += [("const", bound.nthreads), *(("array", a) for a in (bound.handles, bound.prims, bound.packed))]
    args += [("array", bound.starts), ("array", bound.mems), ("array", bound.slots)]
    args += [("var", n, None) for n in names] + [("array", np.empty(0, _F32))] * (ARRAYS - len(names))
    return Launch(_loops().run, args, writes=writes, checked=True, held=bound)


def forward_launches(op, table, meta):
    """conv2d's Output by oneDNN's forward plan (convolution._forward's), or None."""
    x, w, out = one(op, "Input"), one(op, "Filter"), one(op, "Output", "outputs")
    if None in (x, w, out) or not _direct(meta, table, (x, w, out)):
        return None
    shapes = (table[x][0], table[w][0], table[out][0])
    launch = _launch([("forward", {SRC: 0, WEIGHTS: 1, DST: 2})], [x, w, out], shapes, meta.args.geo, [out])
    return launch and [launch]


def grad_launches(op, table, meta):
    """conv2d_grad's Input@GRAD and Filter@GRAD by oneDNN's two plans (both: convolution.grads_into's
    onednn.grads, on the op's geometry) or the one written (its _grad_input or _grad_filter), or None."""
    x, w, dout = one(op, "Input"), one(op, "Filter"), one(op, "Output@GRAD")
    dx, dw = (one(op, s, "outputs") if op.outputs.get(s) else None for s in ("Input@GRAD", "Filter@GRAD"))
    written = [n for n in (dx, dw) if n is not None]
    if None in (x, w, dout) or not written or not _direct(meta, table, (x, w, dout, *written)):
        return None
    runs = []
    if dx is not None:
        runs.append(("grad_input", {DIFF_SRC: 3, WEIGHTS: 1, DIFF_DST: 2}))
    if dw is not None:
        runs.append(("grad_filter", {SRC: 0, DIFF_WEIGHTS: 4 if dx is not None else 3, DIFF_DST: 2}))
    geo = meta.args.op_geo if len(written) == 2 else meta.args.geo
    launch = _launch(runs, [x, w, dout, *written], (table[x][0], table[w][0], table[dout][0]), geo, written)
    return launch and [launch]
