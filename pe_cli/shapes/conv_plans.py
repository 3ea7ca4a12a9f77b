"""The plans conv2d's and pool2d's kernels follow, on either device: their geometry from the shapes of the
inputs and the op's attributes (checked; ConvGeometry, PoolGeometry), and conv2d_transpose's Output shape
with the attributes of the conv2d it transposes (conv_transpose_plan)."""

import numpy as np

from ..base.errors import PeError
from .conv_pool import (
    conv_geometry,
    conv_mismatch,
    conv_transpose_geometry,
    pool_geometry,
    pool_out_size,
    transpose_channel_mismatch,
)


class ConvGeometry:
    """conv2d's geometry from the shapes of Input and Filter and the op's attributes (checked)."""

    __slots__ = ("dh", "dw", "groups", "ho", "kh", "kw", "pads", "sh", "sw", "wo")

    def __init__(self, x_shape, w_shape, attrs):
        self.kh, self.kw = w_shape[2], w_shape[3]
        self.groups = attrs["groups"]
        self.pads, dil, (self.ho, self.wo) = conv_geometry(x_shape, w_shape, attrs)
        self.sh, self.sw = attrs["strides"]
        self.dh, self.dw = dil
        error = conv_mismatch(x_shape, w_shape, self.groups, self.pads, dil, (self.ho, self.wo))
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

    def __init__(self, x_shape, attrs, paddle2=False):
        h, w = x_shape[2:]
        ksize, strides, self.pads = pool_geometry(attrs, (h, w))
        self.kh, self.kw = ksize
        self.sh, self.sw = strides
        ceil = attrs["ceil_mode"] and not attrs["global_pooling"]
        self.ho = pool_out_size(h, self.kh, self.pads[0], self.pads[1], self.sh, ceil)
        self.wo = pool_out_size(w, self.kw, self.pads[2], self.pads[3], self.sw, ceil)
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
        # less than ksize (shapes/pooling.paddle2_window): the box path computes that
        if ceil and paddle2 and attrs["pooling_type"] == "avg" and not attrs["exclusive"]:
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


def conv_transpose_plan(x_shape, w_shape, attrs):
    """(Output's shape, the attrs of the conv2d it transposes) for this run's Input and Filter."""
    error = transpose_channel_mismatch(x_shape, w_shape)
    if error:
        raise PeError(f"conv2d_transpose: {error}")
    pads, dil, out_hw, error = conv_transpose_geometry(x_shape, w_shape, attrs)
    if error:
        raise PeError(f"conv2d_transpose: {error}")
    conv_attrs = {
        "strides": list(attrs["strides"]),
        "paddings": pads,
        "dilations": dil,
        "groups": attrs["groups"],
        "padding_algorithm": "EXPLICIT",
        "data_format": "NCHW",
    }
    return (x_shape[0], w_shape[1] * attrs["groups"], *out_hw), conv_attrs
