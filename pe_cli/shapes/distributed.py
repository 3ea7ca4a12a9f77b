"""Meta rules (shapes/structured.py) of the parameter-server ops (ops/distributed.py).

The id and table ops compute in the trainer: merge_ids' Out[i] is one row of X's width per id of Ids[i], of X's
dtype ("rows"); ref_by_trainer_id's Out is X[TrainerId] (a value the out-kernel reads), of X's shape and dtype
where every X has one ("copy"), else the chosen X's own copy, ``fresh`` of (None, None) ("pick"); split_ids' Out[k]
(one per variable, ``facts.count``) holds as many ids as the values send to server k: ``fresh``, [-1, 1] of the ids'
dtype, a row-sparse Ids' a SelectedRows ((None, None)); lookup_sparse_table's Out is a row of the table W per id,
of W's dtype ("rows": an id W lacks grows W's rows, state its out-kernel keeps: ``Structured.python``), refusing a
W that is no SelectedRows in one line.

The ops that talk to servers (``Structured.python``): send and the barriers have no output ("link"); recv's Out[i]
is the block of ``shapes[i]`` and ``dtype`` the server sends, ``fresh`` (the received array handed over); the gRPC
services pe does not run have their outputs as Fluid infers them (distributed_lookup_table's Outputs[i]: Ids[i]'s
rows of W's width, of ``dtype``; prefetch's [-1, -1] float32), ``fresh``, "service": their out-kernels refuse."""

import numpy as np

from ..base.dims import numel
from ..base.dtypes import convert_dtype
from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from .structured import Meta


def merge_ids_meta(attrs, ins, facts):
    x = ins["X"][0]
    width, dtype = x.shape[1], x.dtype
    return Meta({"Out": [((numel(ids.shape), width), dtype) for ids in ins["Ids"]]}, "rows")


def ref_by_trainer_id_meta(attrs, ins, facts):
    xs = ins["X"]
    specs = {(tuple(x.shape), x.dtype) for x in xs}
    if len(specs) == 1:
        return Meta({"Out": specs.pop()}, "copy")
    return Meta({"Out": (None, None)}, "pick", fresh=True)


def split_ids_meta(attrs, ins, facts):
    ids = ins["Ids"]
    n = facts.count("Out", 0)
    if isinstance(ids[0], SelectedRows):
        return Meta({"Out": [(None, None)] * n}, "sparse", fresh=True)
    dtype = np.result_type(*[x.dtype for x in ids])
    return Meta({"Out": [((-1, 1), dtype)] * n}, "dense", fresh=True)


def lookup_sparse_table_meta(attrs, ins, facts):
    table = ins["W"]
    if not isinstance(table, SelectedRows):
        raise PeError("lookup_sparse_table: W must be a row-sparse table (SelectedRows)")
    values = table.values
    return Meta({"Out": ((numel(ins["Ids"].shape),) + tuple(values.shape[1:]), values.dtype)}, "rows")


def link_meta(attrs, ins, facts):
    """send, send_barrier, fetch_barrier, listen_and_serv, checkpoint_notify, recv_save, fl_listen_and_serv: no
    output."""
    return Meta({}, "link")


def _spec(shape, dtype):
    """(shape, the numpy dtype the attribute names), or (None, None) where it names none (the op's out-kernel says
    what it says of it, as before)."""
    try:
        return tuple(shape), np.dtype(convert_dtype(dtype))
    except (PeError, TypeError, ValueError):
        return None, None


def recv_meta(attrs, ins, facts):
    return Meta({"Out": [_spec(shape, attrs["dtype"]) for shape in attrs["shapes"]]}, "link", fresh=True)


def distributed_lookup_table_meta(attrs, ins, facts):
    width = tuple(ins["W"].shape[1:])
    outs = [_spec(tuple(ids.shape[:1]) + width, attrs["dtype"]) for ids in ins["Ids"]]
    return Meta({"Outputs": outs}, "service", fresh=True)


def prefetch_meta(attrs, ins, facts):
    return Meta({"Out": [((-1, -1), np.dtype(np.float32))] * len(ins["X"])}, "service", fresh=True)
