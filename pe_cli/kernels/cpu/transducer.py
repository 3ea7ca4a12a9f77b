"""CPU out-kernels of ops/transducer.py (meta rules: shapes/transducer.py): the numba-compiled per-sequence
program (_transducer_loops.py) over the batch, into the buffers the meta rule names (the lattices and the float64
loss its scratch). ``warprnnt_inputs`` (kernels/value_checks.py: the lengths and labels checked against the
input's shape) is shared with CUDA."""

import numpy as np

from .runtime.loops import lazy
from ..value_checks import warprnnt_inputs

_loops = lazy("_transducer_loops")


def warprnnt_out(ins, outs, attrs, meta):
    x = np.ascontiguousarray(ins["input"])
    label, t_lens, u_lens = warprnnt_inputs(
        x.shape, ins["label"], ins["input_lengths"], ins["label_lengths"], attrs["blank"]
    )
    grad, loss = outs["warprnntgrad"], outs["loss64"]
    grad.fill(0)  # (a sequence's positions past its lengths keep 0)
    _loops().warprnnt(
        x,
        np.ascontiguousarray(label),
        t_lens,
        u_lens,
        int(attrs["blank"]),
        float(attrs["fastemit_lambda"]),
        outs["alpha"],
        outs["beta"],
        grad,
        loss,
    )
    np.copyto(outs["loss"], loss, casting="unsafe")


def warprnnt_grad_out(ins, outs, attrs, meta):
    dloss = np.asarray(ins["loss@GRAD"]).reshape(-1, 1, 1, 1)
    np.multiply(ins["warprnntgrad"], dloss, out=outs["input@GRAD"], casting="unsafe")
