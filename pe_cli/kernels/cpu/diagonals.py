"""CPU out-kernels of pe_cli/ops/diagonals.py (structured kernels; meta rules, which decide the shapes and the
positions written, in shapes/diagonals.py): numpy, into the buffers handed. The ops' kernels by name, for CUDA's
host fallbacks (kernels/cuda/diagonals.py), are the same two (adapter)."""

import numpy as np

from ...shapes import diagonals as rules
from ..structured import adapter
from .launches import by_variant


def _matrix(ins, outs, attrs, meta):
    """diag_v2 of a vector: padding_value (as a float32, cast as numpy's full casts it), X on the diagonal."""
    rows, cols = meta.args
    out = outs["Out"]
    np.copyto(out, np.float32(attrs["padding_value"]), casting="unsafe")
    out[rows, cols] = ins["X"]


def _diagonal(slot, out_slot):
    def run(ins, outs, attrs, meta):
        k, a1, a2 = meta.args
        outs[out_slot][...] = np.diagonal(ins[slot], k, a1, a2)

    return run


def _place(ins, outs, attrs, meta):
    """diagonal_grad: Out@GRAD on the diagonal of the planes a1 x a2 of zeros."""
    a1, a2, rows, cols = meta.args
    dx = outs["Input@GRAD"]
    dx.fill(0)
    view = np.moveaxis(dx, (a1, a2), (-2, -1))
    view[..., rows, cols] = ins["Out@GRAD"]


def _fill(slot, out_slot, value):
    def run(ins, outs, attrs, meta):
        (positions,) = meta.args
        out = outs[out_slot]
        out[...] = ins[slot]
        out.reshape(-1)[positions] = value(attrs)

    return run


DIAG_V2 = by_variant("diag_v2_out", None, matrix=_matrix, diagonal=_diagonal("X", "Out"))


def _matrix_place(ins, outs, attrs, meta):
    """diag_v2_grad of a matrix: Out@GRAD at the diagonal's positions of zeros."""
    rows, cols = meta.args
    dx = outs["X@GRAD"]
    dx.fill(0)
    dx[rows, cols] = ins["Out@GRAD"]


DIAG_V2_GRAD = by_variant("diag_v2_grad_out", None, diagonal=_diagonal("Out@GRAD", "X@GRAD"), place=_matrix_place)
DIAGONAL = by_variant("diagonal_out", None, diagonal=_diagonal("Input", "Out"))
DIAGONAL_GRAD = by_variant("diagonal_grad_out", None, place=_place)
FILL_DIAGONAL = by_variant("fill_diagonal_out", None, fill=_fill("X", "Out", lambda a: np.float32(a["value"])))
FILL_DIAGONAL_GRAD = by_variant("fill_diagonal_grad_out", None, fill=_fill("Out@GRAD", "X@GRAD", lambda a: 0))

diag_v2 = adapter(rules.diag_v2_meta, DIAG_V2, "diag_v2")
diag_v2_grad = adapter(rules.diag_v2_grad_meta, DIAG_V2_GRAD, "diag_v2_grad")
diagonal = adapter(rules.diagonal_meta, DIAGONAL, "diagonal")
diagonal_grad = adapter(rules.diagonal_grad_meta, DIAGONAL_GRAD, "diagonal_grad")
fill_diagonal = adapter(rules.fill_diagonal_meta, FILL_DIAGONAL, "fill_diagonal")
fill_diagonal_grad = adapter(rules.fill_diagonal_grad_meta, FILL_DIAGONAL_GRAD, "fill_diagonal_grad")
