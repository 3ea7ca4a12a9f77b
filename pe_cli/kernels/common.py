"""Device-independent pieces of the kernels: LoD row maps, codes and composed kernels that the CPU and
CUDA twins both apply (their shape rules: pe_cli/shapes; their checks of index values: value_checks.py). Host-side numpy only (the CPU path
must not import numba.cuda)."""

import numpy as np

from ..base.errors import PeError
from ..shapes.broadcasting import times_of
from ..shapes.recurrent import check_initial_states  # noqa: F401  (the recurrent kernels' and meta rules')
from ..shapes.sequence import POOL_CODES, lod_offsets  # noqa: F401  (the sequence kernels' and meta rules')
from ..shapes.sequence_rows import expand_rows, pad_index, reverse_index  # noqa: F401  (the same)
from ..shapes.convolution_irregular import context_index  # noqa: F401  (sequence_conv's, CUDA's kernel's too)

# -- codes the loops take ------------------------------------------------------------------------

# the recurrent ops' activations, as their numba and CUDA loops take them
ACT_CODES = {"sigmoid": 0, "tanh": 1, "relu": 2, "identity": 3}
# Fluid's sequence RNN ops (lstm, gru, lstmp and the fused ones) compute sigmoid as its math::detail and
# jit kernels do, the input clipped to [SIGMOID_MIN, SIGMOID_MAX] (1 - sigmoid(13) is 2.3e-6: a value,
# not a rounding); pe's kernels of those ops do the same (code 0). The one-step ops (lstm_unit,
# gru_unit) use Fluid's plain sigmoid: code PLAIN_SIGMOID where they share the sequence ops' kernels.
SIGMOID_MIN, SIGMOID_MAX = -40.0, 13.0
PLAIN_SIGMOID = 4


def table_getattr(table, module):
    """A kernel module's ``__getattr__`` (PEP 562) over ``table`` ({op type: kernel}, made from a table of
    rows): the registry finds kernels by op type as module attributes; another name is an AttributeError
    naming ``module``."""

    def __getattr__(name):
        try:
            return table[name]
        except KeyError:
            raise AttributeError(f"module {module!r} has no attribute {name!r}") from None

    return __getattr__


def conj(a):
    """a's complex conjugate (a itself when real). Paddle 2.6's gradients of complex products conjugate the
    other factor: dX = dOut * conj(Y) (elementwise_mul/div, dot), dX = dOut @ conj(Y)^T (matmul, bmm); the
    CUDA twins read the same rule (kernels/cuda/_elementwise.py ``conj``, ``.conjugate()`` in device code)."""
    return np.conj(a) if np.iscomplexobj(a) else a


def seq_offsets(ctx, slot, rows):
    """The offsets of the last LoD level of input ``slot`` (int64), checked against its rows; a
    plain tensor (no LoD) is refused: sequence ops need to know where sequences end."""
    return lod_offsets(ctx.lod.get(slot), slot, rows)


# -- row maps of the sequence ops that move whole rows (out row i = x row index[i]; -1: padding) --


def unpad_index(lengths, padded_length):
    """sequence_unpad: the padded rows each sequence keeps, and the output's offsets."""
    lengths = np.asarray(lengths, dtype=np.int64).reshape(-1)
    if (lengths < 0).any() or (lengths > padded_length).any():
        raise PeError(
            f"sequence_unpad: Length {lengths.tolist()} must be between 0 and the padded length {padded_length}"
        )
    idx = [s * padded_length + np.arange(n) for s, n in enumerate(lengths)]
    offs = [0] + np.cumsum(lengths).astype(int).tolist()
    return (np.concatenate(idx).astype(np.int64) if idx else np.zeros(0, np.int64)), offs


# -- padding (the CPU convolutions and their numpy replicas) ---------------------------------------


def pad(x, pads, value, extent=None):
    """x [N, C, H, W] padded by [top, bottom, left, right] (bottom/right grown to ``extent``)."""
    t, b, l, r = pads
    n, c, h, w = x.shape
    hp, wp = h + t + b, w + l + r
    if extent is not None:
        hp, wp = max(hp, extent[0]), max(wp, extent[1])
    if (hp, wp) == (h, w):
        return x
    out = np.full((n, c, hp, wp), value, dtype=x.dtype)
    out[:, :, t : t + h, l : l + w] = x
    return out


# -- composed kernels ------------------------------------------------------------------------------


def div_grad_grad(k, ins, attrs, ctx):
    """Fluid's elementwise_div_grad_grad, made of a device's own elementwise kernels ``k`` (op type ->
    kernel): with t = ddX - Out * ddY (a missing ddX or ddY is zeros), DDOut = t / Y, Y@GRAD = -(DX t / Y)
    summed to Y's shape, DOut = -DX * ddY."""
    y, out, dx, ddx, ddy = ins["Y"], ins["Out"], ins["DX"], ins.get("DDX"), ins.get("DDY")
    wanted, axis = ctx.wanted({"Y@GRAD", "DOut", "DDOut"}), {"axis": attrs["axis"]}

    def ew(op, a, b):
        return k[op]({"X": a, "Y": b}, axis)["Out"]

    def times(a, factor):
        return k["scale"]({"X": a}, {"scale": factor, "bias": 0.0, "bias_after_scale": True})["Out"]

    outs = {}
    if "DDOut" in wanted or "Y@GRAD" in wanted:
        t = ddx if ddy is None else ew("elementwise_mul", out, ddy)
        t = t if ddy is None else (ew("elementwise_sub", ddx, t) if ddx is not None else times(t, -1.0))
        ddout = ew("elementwise_div", t, y)
        if "Y@GRAD" in wanted:
            part = k["elementwise_mul_grad"]({"X": ddout, "Y": y, "Out": out, "Out@GRAD": dx}, axis)["Y@GRAD"]
            outs["Y@GRAD"] = times(part, -1.0)
        outs["DDOut"] = ddout
    if "DOut" in wanted:
        outs["DOut"] = times(ew("elementwise_mul", dx, ddy), -1.0) if ddy is not None else times(dx, 0.0)
    return {slot: v for slot, v in outs.items() if slot in wanted}


def expand_to(x, target, expand_kernel):
    """x broadcast to ``target`` by a device's expand kernel (CUDA's expand_v2, broadcast_tensors: the CPU's are
    out-kernels, kernels/cpu/broadcasting.py)."""
    padded, times = times_of(x.shape, target)
    return expand_kernel({"X": x.reshape(padded)}, {"expand_times": times})["Out"]


def grad_to(x, dout, grad_kernel):
    """The gradient of x broadcast to dout's shape, by a device's expand_grad kernel."""
    padded, times = times_of(x.shape, dout.shape)
    return grad_kernel({"X": x.reshape(padded), "Out@GRAD": dout}, {"expand_times": times})["X@GRAD"].reshape(x.shape)


# -- random draws the kernels of both devices make on the host ------------------------------------


def crop_offsets(x_shape, attrs, seed):
    """(offsets [instances, k], the next seed): one uniform offset per cropped dim and instance."""
    shape = list(attrs["shape"])
    k = len(x_shape) - len(shape)
    rng = np.random.default_rng(int(np.asarray(seed).reshape(-1)[0]) & 0xFFFFFFFFFFFFFFFF)
    instances = int(np.prod(x_shape[:k], dtype=np.int64))
    highs = np.array([d - n + 1 for d, n in zip(x_shape[k:], shape)], dtype=np.int64)
    offsets = rng.integers(0, highs, size=(instances, len(shape)))
    return offsets, np.array([rng.integers(0, 2**62)], dtype=np.int64)
