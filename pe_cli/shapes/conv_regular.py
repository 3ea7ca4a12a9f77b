"""Convolutions of any geometry Fluid 1.8's im2col and vol2col run, as regular ones the conv kernels take
(paddings >= 0, dilations >= 1, every tap inside the padded input). Along each spatial dim Fluid reads
x[o * stride - pad_before + t * dilation] for output o and tap t, 0 where that falls outside x, so:

- a dilation of 0 reads one element for every tap: the filter summed along that dim (kernel size 1);
- a negative dilation runs the taps backwards: the filter flipped, the dilation's magnitude, the padding
  before grown by (k - 1) * |dilation|;
- a negative padding before skips x's first elements (cropped); the padding after becomes what the
  outputs reach, cropping the elements no output reads (an output size Fluid rounds toward zero may reach
  past the padded input: zeros, as Fluid's bounds check gives).

The gradients run the same steps back: a summed filter's gradient broadcast along the dim, a flipped one's
flipped back, the input gradient 0 where x was cropped. conv2d's meta rules (shapes/conv2d.py) plan it once per
shape signature and its CPU out-kernels (kernels/cpu/convolution.py) follow the plan; the conv3d kernels
(kernels/cpu/convolution3d.py) call their own regular paths through ``Regular``; CUDA's im2col checks bounds
itself."""

import numpy as np


class Regular:
    """How one convolution maps onto a regular one: per spatial dim the input's kept window [lo, hi),
    the filter's fold (None, "sum" or "flip") and the regular paddings and dilations."""

    def __init__(self, windows, folds, ksizes, pads, dils):
        self.windows, self.folds, self.ksizes, self.pads, self.dils = windows, folds, ksizes, pads, dils

    def input(self, x):
        """x [N, C, *spatial] cropped to the window (a ShapeOf-like value: its shape only)."""
        window = (slice(None), slice(None)) + tuple(slice(lo, hi) for lo, hi in self.windows)
        if isinstance(x, np.ndarray):
            return np.ascontiguousarray(x[window])
        return type(x)(tuple(x.shape[:2]) + tuple(hi - lo for lo, hi in self.windows), x.dtype)

    def filter(self, w):
        for i, fold in enumerate(self.folds):
            if fold == "sum":
                w = w.sum(axis=2 + i, keepdims=True)
            elif fold == "flip":
                w = np.flip(w, axis=2 + i)
        return np.ascontiguousarray(w)

    def attrs(self, attrs):
        """The conv's attributes for the regular call."""
        return dict(attrs, paddings=list(self.pads), dilations=list(self.dils), padding_algorithm="EXPLICIT")

    def input_grad(self, dx, x_shape):
        """The regular conv's input gradient placed in zeros of ``x_shape``."""
        full = np.zeros(x_shape, dtype=dx.dtype)
        full[(slice(None), slice(None)) + tuple(slice(lo, hi) for lo, hi in self.windows)] = dx
        return full

    def filter_grad(self, dw):
        for i, fold in enumerate(self.folds):
            if fold == "sum":
                dw = np.repeat(dw, self.ksizes[i], axis=2 + i)
            elif fold == "flip":
                dw = np.flip(dw, axis=2 + i)
        return np.ascontiguousarray(dw)

    def empty(self):
        """Whether an output reads nothing of x (a window of no elements): every output is 0."""
        return any(hi <= lo for lo, hi in self.windows)


def plan(in_sizes, ksizes, strides, pads, dils, outs):
    """The Regular plan of a convolution over spatial sizes ``in_sizes`` with filter sizes ``ksizes``,
    ``pads`` [before, after] per dim, to output sizes ``outs``; None when it is regular already."""
    dils = list(dils)[: len(in_sizes)]
    regular = (
        min(pads) >= 0
        and min(dils) >= 1
        and all(
            (o - 1) * s + d * (k - 1) + 1 <= n + pads[2 * i] + pads[2 * i + 1]
            for i, (n, k, s, d, o) in enumerate(zip(in_sizes, ksizes, strides, dils, outs))
        )
    )
    if regular:
        return None
    windows, folds, new_pads, new_dils = [], [], [], []
    for i, (n, k, s, d, o) in enumerate(zip(in_sizes, ksizes, strides, dils, outs)):
        before, fold = pads[2 * i], None
        if d == 0:
            fold, k, d = "sum", 1, 1
        elif d < 0:
            fold, d = "flip", -d
            before += (k - 1) * d
        lo = max(-before, 0)
        before = max(before, 0)
        reach = (o - 1) * s + d * (k - 1) + 1  # the padded extent the outputs read
        hi = lo + max(0, min(n - lo, reach - before))
        if hi == lo:  # no output reads x along this dim: all of the extent is zero padding
            lo = hi = 0
            before = reach
        windows.append((lo, hi))
        folds.append(fold)
        new_pads += [before, reach - before - (hi - lo)]
        new_dils.append(d)
    return Regular(windows, folds, list(ksizes), new_pads, new_dils)
