"""Kernels of ops/cvm.py (numpy), structured kernels (meta rules: shapes/cvm.py): the "rows" variant writes Y and
X@GRAD into the buffers it is handed (X@GRAD's CVM rows decided by the rule, ``Meta.args``). The kernels by name (a
caller of a kernel by name) are the rules and out-kernels through kernels/structured.adapter."""

import numpy as np

from ...shapes.cvm import cvm_grad_meta, cvm_meta
from ..structured import adapter


def _cvm(ins, outs, attrs, meta):
    x, y = ins["X"], outs["Y"]
    if not attrs["use_cvm"]:
        np.copyto(y, x[:, 2:])
        return
    np.copyto(y, x)
    y[:, 0] = np.log(x[:, 0] + 1)
    y[:, 1] = np.log(x[:, 1] + 1) - y[:, 0]


def _cvm_grad(ins, outs, attrs, meta):
    (rows,) = meta.args
    c, dy, dx = ins["CVM"], ins["Y@GRAD"], outs["X@GRAD"]
    dx[:, 2:] = dy[:, 2:] if attrs["use_cvm"] else dy
    dx[:, :2] = c[rows]


CVM, CVM_GRAD = _cvm, _cvm_grad
cvm = adapter(cvm_meta, CVM, "cvm")
cvm_grad = adapter(cvm_grad_meta, CVM_GRAD, "cvm_grad")
