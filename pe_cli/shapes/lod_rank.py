"""Meta rules of the LoD rank table ops whose inputs and outputs are tensors (ops/lod_rank.py): max_sequence_len,
shrink_rnn_memory, reorder_lod_tensor_by_rank, rnn_memory_helper and their gradients. A rank table is a value (a
RankTable, which no rule reads): the rows it picks are the out-kernels' (kernels/cpu/lod_rank.py), so
shrink_rnn_memory's and reorder_lod_tensor_by_rank's Out are ``fresh`` variants. lod_tensor_to_array's Out is a
tensor array (no tensor: (None, None), fresh); array_to_lod_tensor's Out the rows of the array's tensors, [-1] + the
first one's row shape, of its dtype, fresh (an array of no tensor refused in one line). lod_rank_table's Out is a
rank table, no tensor either ((None, None), fresh): the out-kernel makes it from X's LoD, which only a run has."""

import numpy as np

from ..base.errors import PeError

from .structured import Meta


def _spec(a):
    return (tuple(a.shape), np.dtype(a.dtype))


def _rows_of(x):
    return ((-1,) + tuple(x.shape[1:]), np.dtype(x.dtype))


def lod_rank_table_meta(attrs, ins, facts):
    """lod_rank_table: Out, a RankTable of X's LoD level ``level`` (no tensor: the out-kernel's, fresh)."""
    return Meta({"Out": (None, None)}, "table", fresh=True)


def max_sequence_len_meta(attrs, ins, facts):
    """max_sequence_len: Out, int64 [1], the rank table's longest length."""
    return Meta({"Out": ((1,), np.dtype(np.int64))}, "length")


def shrink_rnn_memory_meta(attrs, ins, facts):
    """shrink_rnn_memory: Out, X's items still running at step I (the table's), X's row shape and dtype."""
    return Meta({"Out": _rows_of(ins["X"])}, "gather", fresh=True)


def shrink_rnn_memory_grad_meta(attrs, ins, facts):
    """shrink_rnn_memory_grad: X@GRAD of X's shape and dtype, Out@GRAD's rows first, zeros after."""
    return Meta({"X@GRAD": _spec(ins["X"])}, "rows")


def reorder_meta(attrs, ins, facts):
    """reorder_lod_tensor_by_rank: Out, X's items in the table's order (its LoD the out-kernel's)."""
    return Meta({"Out": _rows_of(ins["X"])}, "gather", fresh=True)


def reorder_grad_meta(attrs, ins, facts):
    """reorder_lod_tensor_by_rank_grad: X@GRAD of X's shape and dtype, Out@GRAD's rows put back in X's order."""
    return Meta({"X@GRAD": _spec(ins["X"])}, "scatter")


def memory_helper_meta(attrs, ins, facts):
    """rnn_memory_helper: Out is X as it is (an alias)."""
    return Meta({"Out": _spec(ins["X"])}, "alias", aliases={"Out": "X"})


def memory_helper_grad_meta(attrs, ins, facts):
    """rnn_memory_helper_grad: X@GRAD is Out@GRAD as it is, or zeros of X's shape and dtype without one."""
    dout = ins.get("Out@GRAD")
    if dout is None:
        return Meta({"X@GRAD": _spec(ins["X"])}, "zeros")
    return Meta({"X@GRAD": _spec(dout)}, "alias", aliases={"X@GRAD": "Out@GRAD"})


def lod_tensor_to_array_meta(attrs, ins, facts):
    return Meta({"Out": (None, None)}, "array", fresh=True)


def array_to_lod_tensor_meta(attrs, ins, facts):
    first = next((a for a in ins["X"] if a is not None), None)
    if first is None:
        raise PeError("array_to_lod_tensor: the array holds no tensor")
    return Meta({"Out": _rows_of(first)}, "rows", fresh=True)
