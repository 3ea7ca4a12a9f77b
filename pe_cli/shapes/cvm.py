"""The meta rules (shapes/structured.py) of cvm and cvm_grad (ops/cvm.py; out-kernels: kernels/cpu/cvm.py), the "rows"
variant writing into the buffers it is handed. cvm's Y: X's rows with their show and click columns dropped
(use_cvm False: [N, C - 2]) or turned into log(show + 1) and log(click + 1) - log(show + 1) (use_cvm: X's shape), in
X's dtype. cvm_grad's X@GRAD of X's shape and dtype, its first two columns the CVM row each X row takes (its
sequence's where X has LoD, else its own: ``cvm_rows``, decided once per LoD and kept in ``Meta.args``; a CVM with
too few rows refused by the rule, with the kernel's line)."""

import numpy as np

from .sequence import cvm_rows
from .structured import Meta


def cvm_meta(attrs, ins, facts):
    x = ins["X"]
    shape = list(x.shape)
    if not attrs["use_cvm"]:
        shape[1] -= 2
    return Meta({"Y": (tuple(shape), np.dtype(x.dtype))}, "rows")


def cvm_grad_meta(attrs, ins, facts):
    x = ins["X"]
    rows = cvm_rows(x.shape[0], ins["CVM"].shape[0], facts)
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "rows", args=(rows,))
