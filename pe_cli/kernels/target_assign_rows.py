"""target_assign's source rows on host arrays (numpy), checked against X's LoD: the CPU kernel gathers them,
the CUDA kernel copies them over and gathers on the device."""

import numpy as np

from ..base.errors import PeError


def target_rows(ins, attrs, ctx):
    """(rows of X each output takes, or -1, and the (image, column) pairs NegIndices names)."""
    lod = ctx.lod.get("X")
    if not lod:
        raise PeError("target_assign: X needs a LoD (its rows per image)")
    offs = np.asarray(lod[-1], np.int64)
    match = np.asarray(ins["MatchIndices"]).astype(np.int64)
    n, m = match.shape
    if offs.size - 1 != n:
        raise PeError(f"target_assign: X's LoD holds {offs.size - 1} images but MatchIndices has {n} rows")
    src = np.where(match > -1, offs[:-1, None] + match, -1)
    neg_img = neg_col = np.zeros(0, np.int64)
    if "NegIndices" in ins:
        neg_lod = ctx.lod.get("NegIndices")
        if not neg_lod:
            raise PeError("target_assign: NegIndices needs a LoD (its indices per image)")
        noffs = np.asarray(neg_lod[-1], np.int64)
        neg_img = np.repeat(np.arange(noffs.size - 1), np.diff(noffs))
        neg_col = np.asarray(ins["NegIndices"]).reshape(-1).astype(np.int64)
    if (src >= offs[-1]).any() or (neg_col >= m).any() or (neg_col < 0).any():
        raise PeError("target_assign: an index lies outside X's rows of its image or MatchIndices' columns")
    return src, neg_img, neg_col
