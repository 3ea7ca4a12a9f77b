"""Meta rules of the fused sequence ops (ops/sequence_fused.py): fused_embedding_seq_pool and its gradient,
fusion_seqpool_concat, fusion_seqpool_cvm_concat, fusion_seqconv_eltadd_relu, fusion_seqexpand_concat_fc. Each reads
the call's LoD (its sequences: one output row per sequence), never values: the ids' range is checked by the
out-kernel (kernels/cpu/sequence_fused.py). A row-sparse W@GRAD (is_sparse) and fusion_seqexpand_concat_fc's numpy
sums are ``fresh`` variants."""

import numpy as np

from ..base.errors import PeError
from .sequence import lod_offsets
from .structured import Meta


def _width(shape):
    return int(np.prod(shape, dtype=np.int64))


def embedding_seq_pool_meta(attrs, ins, facts):
    """fused_embedding_seq_pool: Out [sequences of Ids, k * emb_dim] (k: Ids' values per step) of W's dtype; the
    offsets of Ids' sequences."""
    w, ids = ins["W"], ins["Ids"]
    offs = lod_offsets(facts.lod.get("Ids"), "Ids", ids.shape[0])
    width = _width(ids.shape[1:]) * _width(w.shape[1:])
    return Meta({"Out": ((offs.size - 1, width), np.dtype(w.dtype))}, "sums", args=(offs,))


def embedding_seq_pool_grad_meta(attrs, ins, facts):
    """fused_embedding_seq_pool_grad: W@GRAD of W's shape and dtype, dense, or (is_sparse) a SelectedRows of every id
    (``fresh``: the out-kernel hands it over)."""
    w, ids = ins["W"], ins["Ids"]
    offs = lod_offsets(facts.lod.get("Ids"), "Ids", ids.shape[0])
    sparse = bool(attrs["is_sparse"])
    return Meta(
        {"W@GRAD": (tuple(w.shape), np.dtype(w.dtype))}, "sparse" if sparse else "dense", args=(offs,), fresh=sparse
    )


def seqpool_concat_meta(attrs, ins, facts):
    """fusion_seqpool_concat and fusion_seqpool_cvm_concat: Out [sequences, the inputs' widths summed] (their dtypes
    joined), each input's offsets; every input needs a LoD of as many sequences."""
    lods, offsets = facts.lod["X"], []
    for i, (x, lod) in enumerate(zip(ins["X"], lods)):
        if not lod:
            raise PeError(f"input X[{i}] has no LoD: the op pools sequences (feed a LoDTensor)")
        offs = np.asarray(lod[-1], dtype=np.int64)
        if offsets and len(offs) - 1 != len(offsets[0]) - 1:
            raise PeError(
                f"X[{i}] holds {len(offs) - 1} sequences, X[0] {len(offsets[0]) - 1}: each input needs one per row "
                f"of Out"
            )
        offsets.append(lod_offsets([offs], "X", x.shape[0]))
    width = sum(_width(x.shape[1:]) for x in ins["X"])
    dtype = np.result_type(*[x.dtype for x in ins["X"]])
    return Meta({"Out": ((len(offsets[0]) - 1, width), dtype)}, "pools", args=(offsets,))


def seqconv_eltadd_relu_meta(attrs, ins, facts):
    """fusion_seqconv_eltadd_relu: Out [rows, Filter's columns] and ColMat [rows, Filter's rows] of X's dtype; X's
    offsets and the context's padding above and below (Fluid's)."""
    x, w, b = ins["X"], ins["Filter"], ins["Bias"]
    offs = lod_offsets(facts.lod.get("X"), "X", x.shape[0])
    if _width(b.shape) != w.shape[1]:
        raise PeError(f"Bias holds {_width(b.shape)} values; Filter {list(w.shape)} needs {w.shape[1]}")
    start, length = attrs["contextStart"], attrs["contextLength"]
    if start > 1:
        raise PeError(
            f"contextStart={start}: Fluid 1.8.5's kernel copies outside its buffers for a contextStart "
            f"above 1 (its results are undefined); use contextStart <= 1"
        )
    dtype = np.dtype(x.dtype)
    outputs = {"Out": ((x.shape[0], w.shape[1]), dtype), "ColMat": ((x.shape[0], w.shape[0]), dtype)}
    return Meta(outputs, "columns", args=(offs, max(0, -start), max(0, start + length - 1)))


def seqexpand_concat_fc_meta(attrs, ins, facts):
    """fusion_seqexpand_concat_fc: Out [X[0]'s rows, D] and FCOut [sequences, D] of X[0]'s dtype (numpy's products,
    handed over: ``fresh``); X[0]'s offsets; every other input one row per sequence of X[0]."""
    xs, w = ins["X"], ins["FCWeight"]
    offs = lod_offsets(facts.lod["X"][0], "X", xs[0].shape[0])
    n = len(offs) - 1
    for i, x in enumerate(xs[1:], 1):
        if x.shape[0] != n:
            raise PeError(
                f"X[{i}] has {x.shape[0]} rows; X[0] holds {n} sequences, and each other input needs "
                f"one row per sequence"
            )
    dtype = np.dtype(xs[0].dtype)
    outputs = {"Out": ((xs[0].shape[0], w.shape[1]), dtype), "FCOut": ((n, w.shape[1]), dtype)}
    return Meta(outputs, "products", args=(offs,), fresh=True)
