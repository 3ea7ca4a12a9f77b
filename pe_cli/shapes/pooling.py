"""The pooling family's windows and attributes, shared by the kernels of both devices: each output's window
(starts, ends, divisor) per dim as Fluid's and Paddle 2.x's loops clip them, adaptive pooling's attributes,
spp's levels."""

import numpy as np

from .conv_pool import adaptive_size, pool3d_geometry, pool3d_out


def adaptive_attrs(x_shape, attrs):
    """An adaptive pool2d's attributes with ksize its output size (the input's own with global_pooling)."""
    return dict(attrs, ksize=adaptive_size(attrs, x_shape[2:]))


def box_windows(sizes, ksize, strides, pads, outs, inclusive, padded_end=False):
    """Per dim: the windows' (starts, ends) clipped to X, as Fluid's loops clip them (an end may fall at or
    before its start: an empty window), and the divisor per output position (ksize with ``inclusive``;
    with ``padded_end`` too, Paddle 2.x's: the window clipped to the padded input, start + padding
    before, so a ceil_mode window reaching past it divides by less: docs/COMPAT.md, "pool2d")."""
    result = []
    for i, (n, k, s, m) in enumerate(zip(sizes, ksize, strides, outs)):
        start = np.arange(m, dtype=np.int64) * s - pads[2 * i]
        end = np.minimum(start + k, n)
        if inclusive and padded_end:
            div = (np.minimum(start + k, n + pads[2 * i]) - start).astype(np.float64)
        else:
            div = np.full(m, float(k)) if inclusive else None
        start = np.maximum(start, 0)
        result.append((start, end, div if div is not None else (end - start).astype(np.float64)))
    return result


def paddle2_window(attrs, paddle2):
    """Whether an average pool divides as Paddle 2.x does (``paddle2``: the op's ``Operator.paddle2``, set in
    programs that follow Paddle 2.6, framework/program_release.py; a kernel's ``ctx.paddle2``): inclusive
    windows with ceil_mode, which differ from Fluid 1.8's."""
    return (
        bool(paddle2)
        and attrs["pooling_type"] == "avg"
        and not attrs["exclusive"]
        and bool(attrs["ceil_mode"])
        and not attrs["adaptive"]
    )


def adaptive_max_boxes(sizes, attrs):
    """Fluid's pool kernels (1.8.5's and Paddle 2.6's) run max pooling with adaptive=True as a plain one:
    windows of ksize (X's size with global_pooling) at strides from 0, clipped to X; only Out's size,
    ksize, is adaptive pooling's (max_pool2d_with_index pools adaptively)."""
    ksize = adaptive_size(attrs, sizes)
    return box_windows(sizes, ksize, attrs["strides"], [0] * (2 * len(sizes)), ksize, False)


def windows(x_shape, attrs, paddle2=False):
    """Per spatial dim: (starts, ends) of the windows, clipped to X; and the avg divisor per output
    position of each dim (multiplied together: the window volume, or ksize's with exclusive off;
    ``paddle2``: Paddle 2.x's, paddle2_window)."""
    dhw = list(x_shape[2:])
    out = pool3d_out(attrs, dhw)
    result = []
    if attrs["adaptive"] and attrs["pooling_type"] == "max":
        return adaptive_max_boxes(dhw, attrs)
    if attrs["adaptive"]:
        for n, k in zip(dhw, out):
            i = np.arange(k, dtype=np.int64)
            s, e = (i * n) // k, -((-(i + 1) * n) // k)
            result.append((s, e, (e - s).astype(np.float64)))
        return result
    ksize, strides, pads = pool3d_geometry(attrs, dhw)
    return box_windows(
        dhw,
        ksize,
        strides,
        pads,
        out,
        attrs["pooling_type"] == "avg" and not attrs["exclusive"],
        paddle2_window(attrs, paddle2),
    )


def spp_levels(x_shape, attrs):
    """pool2d's attributes of each level p: 2^p bins, windows ceil(H / 2^p) (as many strides apart), padded
    by (window * 2^p - H + 1) / 2, padding left out of averages."""
    h, w = x_shape[2], x_shape[3]
    levels = []
    for p in range(attrs["pyramid_height"]):
        bins = 2**p
        kh, kw = -(-h // bins), -(-w // bins)
        levels.append(
            {
                "pooling_type": attrs["pooling_type"],
                "ksize": [kh, kw],
                "strides": [kh, kw],
                "paddings": [(kh * bins - h + 1) // 2, (kw * bins - w + 1) // 2],
                "global_pooling": False,
                "exclusive": True,
                "adaptive": False,
                "ceil_mode": False,
                "padding_algorithm": "EXPLICIT",
                "data_format": "NCHW",
            }
        )
    return levels
