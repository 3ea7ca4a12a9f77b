"""Device-independent pieces of the kernels: shape rules and index checks that the CPU and CUDA
twins both apply. Host-side numpy only (the CPU path must not import numba.cuda)."""

import numpy as np

from ..base.errors import PeError
from ..shapes import conv_pool, manipulation

# -- shapes (the rules live in pe_cli.shapes; here they raise at run time) --------------------------


def reshape_shape(x_shape, size, shape):
    """The target shape by Fluid's rule (0 copies X's dim, one -1 is inferred), checked against
    X's ``size`` elements."""
    shape = [int(d) for d in shape]
    out, error = manipulation.reshape_target(x_shape, shape)
    if error:
        raise PeError(f"cannot reshape X of shape {list(x_shape)} to {shape}: {error}")
    return out


def split_sizes(x_shape, axis, attrs):
    """The sizes of split's parts along ``axis``: ``num`` equal ones, or ``sections`` (one -1 inferred)."""
    sizes, error = manipulation.split_sizes(x_shape, axis, attrs["num"], attrs["sections"])
    if error:
        raise PeError(f"split: {error}")
    return sizes


def squeeze_axes(x_shape, axes):
    """The axes squeeze removes: ``axes`` (each checked to be 1), or every dim of size 1."""
    out, error = manipulation.squeeze_axes(x_shape, axes)
    if error:
        raise PeError(f"cannot squeeze X of shape {list(x_shape)} along axes {list(axes)}: {error}")
    return out


def unsqueeze_shape(x_shape, axes):
    out, error = manipulation.unsqueeze_shape(x_shape, axes)
    if error:
        raise PeError(f"cannot unsqueeze X of shape {list(x_shape)} along axes {list(axes)}: {error}")
    return out


def slice_window(shape, attrs):
    """(start per dim, size per dim) of slice's window: negative bounds count from the end, all
    are clipped to the dim."""
    ends, flags, decrease = list(attrs["ends"]), attrs.get("infer_flags") or (), attrs.get("decrease_axis") or ()
    for i, (a, s, e) in enumerate(zip(attrs["axes"], attrs["starts"], ends)):
        if s == -1 and e == 0 and a in decrease and i < len(flags) and flags[i] == -1:
            ends[i] = manipulation.SLICE_END  # Fluid's kernel: var[i] with a Variable i of -1 (ends i + 1) is the last
    return manipulation.slice_window(shape, attrs["axes"], attrs["starts"], ends)


def check_slice_not_empty(x_shape, sizes, attrs):
    if int(np.prod(sizes)) == 0:
        raise PeError(
            f"slice of Input of shape {list(x_shape)} with axes={list(attrs['axes'])}, "
            f"starts={list(attrs['starts'])}, ends={list(attrs['ends'])} is empty"
        )


# -- index checks (host arrays) ------------------------------------------------------------------------


def gather_rows(index, n):
    """gather's Index as a flat int64 array, checked to lie in [0, n)."""
    idx = index.reshape(-1).astype(np.int64, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise PeError(f"gather: index {bad} is out of range for X with {n} rows")
    return idx


def one_hot_ids(x, depth, allow_out_of_range):
    """one_hot's X [..., 1] as int64 ids [...], checked to lie in [0, depth) unless allowed not to (and to end in
    a dim of 1: Fluid builds one that ends in more, whose kernel then writes past Out)."""
    if x.shape[-1:] != (1,):
        raise PeError(f"one_hot: X {list(x.shape)} must end in a dim of size 1 (ids shaped [N, 1])")
    ids = x.reshape(x.shape[:-1]).astype(np.int64, copy=False)
    outside = (ids < 0) | (ids >= depth)
    if outside.any() and not allow_out_of_range:
        raise PeError(
            f"one_hot: id {ids[outside][0]} is outside [0, {depth}); "
            f"pass allow_out_of_range=True to get an all-zero row instead"
        )
    return ids


def table_ids(ids, w_shape, pad):
    """lookup_table's Ids as a flat int64 array, checked to lie in [0, rows of W) or be ``pad``."""
    flat = ids.reshape(-1).astype(np.int64, copy=False)
    bad = (flat < 0) | (flat >= w_shape[0])
    if pad >= 0:
        bad &= flat != pad
    if bad.any():
        raise PeError(f"Ids hold {int(flat[bad][0])}, outside the table of {w_shape[0]} rows (W {list(w_shape)})")
    return flat


# -- conv2d and pool2d geometry ------------------------------------------------------------------------


class ConvGeometry:
    """conv2d's geometry from the shapes of Input and Filter and the op's attributes (checked)."""

    __slots__ = ("dh", "dw", "groups", "ho", "kh", "kw", "pads", "sh", "sw", "wo")

    def __init__(self, x_shape, w_shape, attrs):
        self.kh, self.kw = w_shape[2], w_shape[3]
        self.groups = attrs["groups"]
        self.pads, dil, (self.ho, self.wo) = conv_pool.conv_geometry(x_shape, w_shape, attrs)
        self.sh, self.sw = attrs["strides"]
        self.dh, self.dw = dil
        error = conv_pool.conv_mismatch(x_shape, w_shape, self.groups, self.pads, dil, (self.ho, self.wo))
        if error:
            raise PeError(error)

    def loop_args(self):
        """The geometry as the conv loops take it (_conv_loops.conv_*)."""
        return (
            self.groups,
            self.kh,
            self.kw,
            self.sh,
            self.sw,
            self.pads[0],
            self.pads[2],
            self.dh,
            self.dw,
            self.ho,
            self.wo,
            self.is_pointwise(),
        )

    def gemm_macs(self, w_shape):
        """Multiply-adds of one per-sample, per-group GEMM."""
        return (w_shape[0] // self.groups) * w_shape[1] * self.kh * self.kw * self.ho * self.wo

    def is_pointwise(self):
        """A 1x1 filter at stride 1 without padding: the input is its own im2col matrix."""
        return (self.kh, self.kw, self.sh, self.sw) == (1, 1, 1, 1) and not any(self.pads)


class PoolGeometry:
    """pool2d's geometry from the shape of X and the op's attributes (checked); the numpy paths'
    slices."""

    __slots__ = ("extent", "ho", "kh", "kw", "pads", "regular", "sh", "sw", "wo")

    def __init__(self, x_shape, attrs):
        h, w = x_shape[2:]
        ksize, strides, self.pads = conv_pool.pool_geometry(attrs, (h, w))
        self.kh, self.kw = ksize
        self.sh, self.sw = strides
        ceil = attrs["ceil_mode"] and not attrs["global_pooling"]
        self.ho = conv_pool.pool_out_size(h, self.kh, self.pads[0], self.pads[1], self.sh, ceil)
        self.wo = conv_pool.pool_out_size(w, self.kw, self.pads[2], self.pads[3], self.sw, ceil)
        if self.ho <= 0 or self.wo <= 0:
            raise PeError(f"pool window {ksize} (paddings {self.pads}) does not fit input {list(x_shape)}")
        self.extent = ((self.ho - 1) * self.sh + self.kh, (self.wo - 1) * self.sw + self.kw)
        # the windows the fast kernels take: each of ksize >= 1, paddings in [0, ksize), none empty; Fluid runs
        # any other (kernels/cpu/pooling.py pools them as its loops do)
        self.regular = (
            min(ksize) >= 1
            and all(0 <= p < k for p, k in zip(self.pads, (self.kh, self.kh, self.kw, self.kw)))
            and all(
                (o - 1) * s - p < n
                for o, s, p, n in ((self.ho, self.sh, self.pads[0], h), (self.wo, self.sw, self.pads[2], w))
            )
        )
        # Paddle 2.x's inclusive average with ceil_mode divides a window reaching past the padded input by
        # less than ksize (kernels/cpu/pooling.paddle2_window): the box path computes that
        if ceil and attrs.get("_paddle2") and attrs["pooling_type"] == "avg" and not attrs["exclusive"]:
            self.regular = (
                self.regular and self.extent[0] <= h + 2 * self.pads[0] and self.extent[1] <= w + 2 * self.pads[2]
            )

    def is_2x2_inside(self, x_shape):
        """2x2 windows at stride 2, none reaching outside the input: the unrolled loops apply."""
        return (
            (self.kh, self.kw, self.sh, self.sw) == (2, 2, 2, 2)
            and not any(self.pads)
            and (self.ho - 1) * self.sh + 2 <= x_shape[2]
            and (self.wo - 1) * self.sw + 2 <= x_shape[3]
        )

    def by_kernel(self):
        """True: loop over kernel positions (each a strided slice over all outputs); False: loop over
        output positions (each a window over the batch). Whichever has fewer steps."""
        return self.kh * self.kw <= self.ho * self.wo

    def kernel_slices(self):
        hspan, wspan = self.sh * (self.ho - 1) + 1, self.sw * (self.wo - 1) + 1
        for i in range(self.kh):
            for j in range(self.kw):
                yield (slice(None), slice(None), slice(i, i + hspan, self.sh), slice(j, j + wspan, self.sw))

    def windows(self):
        for oh in range(self.ho):
            for ow in range(self.wo):
                h0, w0 = oh * self.sh, ow * self.sw
                yield oh, ow, (slice(None), slice(None), slice(h0, h0 + self.kh), slice(w0, w0 + self.kw))

    def counts(self, h, w, exclusive):
        """Divisor of each average: non-padding elements in the window (exclusive) or kh*kw."""
        if not exclusive:
            return self.kh * self.kw

        def along(size, k, s, pad, out):
            start = np.arange(out) * s - pad
            return np.minimum(start + k, size) - np.maximum(start, 0)

        ch = along(h, self.kh, self.sh, self.pads[0], self.ho)
        cw = along(w, self.kw, self.sw, self.pads[2], self.wo)
        return np.maximum(ch[:, None] * cw[None, :], 1)


POOL_CODES = {"AVERAGE": 0, "SUM": 1, "SQRT": 2, "MAX": 3, "LAST": 4, "FIRST": 5}
# the recurrent ops' activations, as their numba and CUDA loops take them
ACT_CODES = {"sigmoid": 0, "tanh": 1, "relu": 2, "identity": 3}
# Fluid's sequence RNN ops (lstm, gru, lstmp and the fused ones) compute sigmoid as its math::detail and
# jit kernels do, the input clipped to [SIGMOID_MIN, SIGMOID_MAX] (1 - sigmoid(13) is 2.3e-6: a value,
# not a rounding); pe's kernels of those ops do the same (code 0). The one-step ops (lstm_unit,
# gru_unit) use Fluid's plain sigmoid: code PLAIN_SIGMOID where they share the sequence ops' kernels.
SIGMOID_MIN, SIGMOID_MAX = -40.0, 13.0
PLAIN_SIGMOID = 4


def seq_offsets(attrs, slot, rows):
    """The offsets of the last LoD level of input ``slot`` (int64), checked against its rows; a
    plain tensor (no LoD) is refused: sequence ops need to know where sequences end."""
    lod = (attrs.get("_lod") or {}).get(slot)
    if not lod:
        raise PeError(
            f"input {slot} has no LoD: this sequence op needs a LoDTensor "
            f"(feed one made with fluid.create_lod_tensor, or a variable with lod_level >= 1)"
        )
    offs = np.asarray(lod[-1], dtype=np.int64)
    if offs[-1] != rows:
        raise PeError(f"input {slot}'s LoD ends at {int(offs[-1])} but it has {rows} rows")
    return offs


def check_initial_states(ins, offs, slots=("H0", "C0")):
    """A recurrent op's initial states (H0, C0) must have one row per sequence of Input."""
    for slot in slots:
        state = ins.get(slot)
        if state is not None and state.shape[0] != len(offs) - 1:
            raise PeError(
                f"{slot} has {state.shape[0]} rows but Input holds {len(offs) - 1} sequences: give one "
                f"initial state per sequence"
            )


# -- row maps of the sequence ops that move whole rows (out row i = x row index[i]; -1: padding) --


def reverse_index(offs):
    """Each sequence's rows in reverse order."""
    idx = np.arange(int(offs[-1]), dtype=np.int64)
    for a, b in zip(offs[:-1], offs[1:]):
        idx[a:b] = idx[a:b][::-1]
    return idx


def expand_index(x_offs, ref_offs, x_rows=None):
    """sequence_expand: x's sequence i (its row i without a LoD: ``x_offs`` None, ``x_rows`` rows)
    repeated ref's length-i times; returns the row map and the output's offsets (one sequence per
    repeat), None when x has no LoD (Fluid: a plain X gives a plain Out)."""
    plain = x_offs is None
    if plain:
        x_offs = np.arange(len(ref_offs) if x_rows is None else x_rows + 1, dtype=np.int64)
    if len(x_offs) != len(ref_offs):
        what = "rows" if plain else "sequences"
        raise PeError(
            f"sequence_expand: X has {len(x_offs) - 1} {what} but Y's LoD level has "
            f"{len(ref_offs) - 1} sequences; they must match"
        )
    rows, out_offs = [], [0]
    for i in range(len(ref_offs) - 1):
        for _ in range(int(ref_offs[i + 1] - ref_offs[i])):
            rows.append(np.arange(x_offs[i], x_offs[i + 1]))
            out_offs.append(out_offs[-1] + int(x_offs[i + 1] - x_offs[i]))
    idx = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
    return idx, (None if plain else out_offs)


def pad_index(offs, padded_length):
    """sequence_pad: [nseq, length] positions -> x row, -1 past a sequence's end."""
    lengths = np.diff(offs)
    length = int(lengths.max(initial=0)) if padded_length < 0 else padded_length
    if lengths.size and lengths.max() > length:
        raise PeError(
            f"sequence_pad: padded_length {padded_length} is shorter than the longest sequence ({int(lengths.max())})"
        )
    pos = np.arange(length)[None, :]
    idx = np.where(pos < lengths[:, None], offs[:-1, None] + pos, -1)
    return idx.reshape(-1).astype(np.int64), length


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


def expand_rows(attrs, x_rows, y_rows):
    """sequence_expand's row map and output offsets (None for a plain X) from its inputs' LoD: X's
    sequence i repeated as many times as Y's LoD level ``ref_level`` (-1: the last) counts in its
    sequence i. As in Fluid, only a one-level LoD of X groups its rows; X with a deeper LoD (a beam
    search's state) expands row by row."""
    x_lod = (attrs.get("_lod") or {}).get("X")
    x_offs = np.asarray(x_lod[0], dtype=np.int64) if x_lod and len(x_lod) == 1 else None
    ref = seq_offsets(attrs, "Y", y_rows)
    y_lod, level = attrs["_lod"]["Y"], attrs.get("ref_level", -1)
    if level not in (-1, len(y_lod) - 1):  # an outer level: each count is of its inner sequences
        ref = np.asarray(y_lod[level], dtype=np.int64)
    return expand_index(x_offs, ref, x_rows)


def context_index(offs, start, length, trainable=False):
    """sequence_conv's context: for each row and window position k, the row start + k steps
    away within the same sequence, or -1 (zero padding) outside it. [rows * length]. With
    ``trainable`` (paddingTrainable) a step outside is a row of PaddingData instead, placed after X's
    rows: PaddingData row up + d for a step d rows before the sequence's start (d < 0) or d rows past
    its end (d >= 0), up = max(0, -start) its rows for the steps before, as Fluid's."""
    offs = np.asarray(offs, dtype=np.int64)
    rows = int(offs[-1])
    seq = np.repeat(np.arange(len(offs) - 1), np.diff(offs))
    src = np.arange(rows)[:, None] + start + np.arange(length)[None, :]
    lo, hi = offs[seq][:, None], offs[seq + 1][:, None]
    outside = -1
    if trainable:
        outside = rows + max(0, -start) + np.where(src < lo, src - lo, src - hi)
    return np.where((src >= lo) & (src < hi), src, outside).reshape(-1).astype(np.int64)


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


def div_grad_grad(k, ins, attrs):
    """Fluid's elementwise_div_grad_grad, made of a device's own elementwise kernels ``k`` (op type ->
    kernel): with t = ddX - Out * ddY (a missing ddX or ddY is zeros), DDOut = t / Y, Y@GRAD = -(DX t / Y)
    summed to Y's shape, DOut = -DX * ddY."""
    y, out, dx, ddx, ddy = ins["Y"], ins["Out"], ins["DX"], ins.get("DDX"), ins.get("DDY")
    wanted, axis = attrs.get("_outputs", {"Y@GRAD", "DOut", "DDOut"}), {"axis": attrs["axis"]}

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
