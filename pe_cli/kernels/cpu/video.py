"""CPU out-kernels of ops/video.py (meta rules: shapes/video.py): temporal_shift and its gradient, slices of the
[N, T, C, H, W] view of the buffer handed. The ops' kernels by name (CUDA's host fallbacks, kernels/cuda/video.py)
are the adapters over them."""

from ..structured import adapter
from ...shapes import video as rules


def _shift(x, out, attrs, bands, forward):
    """Forward: each segment's channels below c1 take segment t - 1's values, those below c2 segment
    t + 1's (zeros past the ends); its gradient moves them back (forward=False)."""
    t = attrs["seg_num"]
    c1, c2 = bands
    v = x.reshape((x.shape[0] // t, t) + x.shape[1:])
    out = out.reshape(v.shape)
    out.fill(0)
    later, earlier = (slice(1, None), slice(None, -1))
    a, b = (later, earlier) if forward else (earlier, later)
    out[:, a, :c1] = v[:, b, :c1]
    out[:, b, c1:c2] = v[:, a, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]


def temporal_shift_out(ins, outs, attrs, meta):
    _shift(ins["X"], outs["Out"], attrs, meta.args, True)


def temporal_shift_grad_out(ins, outs, attrs, meta):
    _shift(ins["Out@GRAD"], outs["X@GRAD"], attrs, meta.args, False)


temporal_shift = adapter(rules.temporal_shift_meta, temporal_shift_out, "temporal_shift")
temporal_shift_grad = adapter(rules.temporal_shift_grad_meta, temporal_shift_grad_out, "temporal_shift_grad")
