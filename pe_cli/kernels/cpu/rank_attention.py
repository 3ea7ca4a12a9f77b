"""Kernels of ops/rank_attention.py (numpy): structured kernels (meta rules: shapes/rank_attention.py, which refuse
a RankParam of other rows), the "numpy" variant's arrays handed over as the outputs (``fresh``); the kernels by name
are the rules and out-kernels through kernels/structured.adapter."""

import numpy as np

from ...base.errors import PeError
from ...shapes.rank_attention import rank_attention_grad_meta, rank_attention_meta
from ..structured import adapter, fresh_kernel


def _expand(x, offset, rank):
    """(gathered rows [N, R, C], each pair's parameter block index [N, R], valid [N, R])."""
    n = x.shape[0]
    offset = offset.astype(np.int64)
    lower = offset[:, 0] - 1
    faster = offset[:, 1 : 1 + 2 * rank : 2] - 1
    rows = offset[:, 2 : 2 + 2 * rank : 2]
    valid = (lower[:, None] >= 0) & (faster >= 0)
    if (rows[valid] < 0).any() or (rows[valid] >= n).any() or (faster[valid] >= rank).any() or (lower >= rank).any():
        raise PeError(f"rank_attention: RankOffset holds a rank above MaxRank {rank} or a row outside X's {n} rows")
    gathered = np.where(valid[..., None], x[np.where(valid, rows, 0)], 0)
    block = np.where(valid, lower[:, None] * rank + faster, 0)
    return gathered, block, valid


def _rank_attention(ins, attrs):
    x, param, rank = ins["X"], ins["RankParam"], attrs["MaxRank"]
    gathered, block, valid = _expand(x, ins["RankOffset"], rank)
    blocks = param.reshape(rank * rank, x.shape[1], param.shape[1])[block] * valid[..., None, None]
    out = np.einsum("nrc,nrcp->np", gathered, blocks)
    return {
        "Out": out.astype(x.dtype),
        "InputHelp": gathered.reshape(x.shape[0], rank * x.shape[1]),  # (an empty batch: [0, MaxRank * C])
        "InsRank": ins["RankOffset"][:, :1].astype(x.dtype),
    }


def _rank_attention_grad(ins, attrs):
    x, param, dout, rank = ins["X"], ins["RankParam"], ins["Out@GRAD"], attrs["MaxRank"]
    gathered, block, valid = _expand(x, ins["RankOffset"], rank)
    dparam = np.zeros((rank * rank, x.shape[1], param.shape[1]), dtype=param.dtype)
    contributions = gathered[..., :, None] * dout[:, None, None, :]  # [N, R, C, P]
    np.add.at(dparam, block[valid], contributions[valid])
    return {"RankParam@GRAD": dparam.reshape(param.shape)}


RANK_ATTENTION = fresh_kernel(_rank_attention, "rank_attention_numpy")
RANK_ATTENTION_GRAD = fresh_kernel(_rank_attention_grad, "rank_attention_grad_numpy")
rank_attention = adapter(rank_attention_meta, RANK_ATTENTION, "rank_attention")
rank_attention_grad = adapter(rank_attention_grad_meta, RANK_ATTENTION_GRAD, "rank_attention_grad")
