"""Kernel of ops/ctc.py (numpy); ``align`` works on host arrays and serves the CUDA kernel too."""
import numpy as np

from ...errors import PeError


def _keep(ids, starts, attrs):
    """Which steps survive: not blank and, with merge_repeated, not equal to the step before in
    the same sequence (``starts`` marks each sequence's first step)."""
    keep = ids != attrs["blank"]
    if attrs["merge_repeated"]:
        same = np.zeros(ids.shape, dtype=bool)
        same[1:] = ids[1:] == ids[:-1]
        keep &= ~(same & ~starts)
    return keep


def align(x, attrs, lengths=None):
    """ctc_align on host values: ({slot: array}, Output's LoD or None)."""
    x = np.asarray(x)
    if lengths is not None:
        n, t = x.shape
        lengths = np.asarray(lengths).reshape(-1).astype(np.int64)
        if lengths.size != n or (lengths < 0).any() or (lengths > t).any():
            raise PeError(f"ctc_align: InputLength {lengths.tolist()} must hold one length in [0, {t}] per row "
                          f"of Input {list(x.shape)}")
        valid = np.arange(t)[None, :] < lengths[:, None]
        starts = np.zeros((n, t), dtype=bool)
        starts[:, 0] = True
        keep = (_keep(x.reshape(-1), starts.reshape(-1), attrs).reshape(n, t)) & valid
        out = np.full((n, t), attrs["padding_value"], dtype=x.dtype)
        counts = keep.sum(axis=1)
        out[np.arange(t)[None, :] < counts[:, None]] = x[keep]
        return {"Output": out, "OutputLength": counts.astype(np.int64).reshape(n, 1)}, None
    lod = (attrs.get("_lod") or {}).get("Input")
    if not lod:
        raise PeError("ctc_align: Input has no LoD; feed sequences (a LoDTensor) or padded ids with InputLength")
    offs = np.asarray(lod[-1], dtype=np.int64)
    ids = x.reshape(-1)
    if offs[-1] != ids.size:
        raise PeError(f"ctc_align: Input's LoD ends at {int(offs[-1])} but it has {ids.size} rows")
    starts = np.zeros(ids.size, dtype=bool)
    starts[offs[:-1][offs[:-1] < ids.size]] = True
    keep = _keep(ids, starts, attrs)
    kept = np.concatenate([[0], np.cumsum(keep)])
    out_lod = [int(v) for v in kept[offs]]
    out = ids[keep].reshape(-1, 1)
    if out.shape[0] == 0:
        out = np.full((1, 1), -1, dtype=x.dtype)
    return {"Output": out}, [out_lod]


def ctc_align(ins, attrs):
    outs, lod = align(ins["Input"], attrs, ins.get("InputLength"))
    if lod is not None:
        outs["@LOD"] = {"Output": lod}
    return outs
