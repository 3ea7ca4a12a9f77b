"""Convolution and pooling geometry (paddings, output sizes, the checks of Input against Filter),
shared by shape inference (``pe_cli/ops``) and the kernels of both devices.

Rules that can fail return ``(result, error)`` with ``error`` a sentence (or None): the caller adds
where it happened (the layer, or the kernel) and raises. At build time a dim may be unknown (-1 or None)."""

from ..base.dims import fmt_shape, is_known

# oneDNN from this many input channels a group: with fewer its forward and input gradient took 1.6-15x
# pe's own paths' time (batch 64, Xeon VM, 2026-11-25); LeNet-5's 6 channels: 1.03x its step, so 8. The CPU
# kernels (kernels/cpu/runtime/onednn.py) choose their path by it, and conv2d's definition (ops/convolution.py)
# which of its slots may hold oneDNN's blocked layout.
ONEDNN_MIN_CHANNELS = 8


def conv_paddings(paddings, algorithm, in_hw, ksize, strides, dilations):
    """Explicit paddings [top, bottom, left, right] (two per spatial dim: 3-D convolution has six) and
    the dilations to use, under Fluid's ``padding_algorithm``: EXPLICIT takes ``paddings`` (one per dim,
    [h, w], or two, [t, b, l, r]); VALID pads nothing;
    SAME pads so that out = ceil(in / stride) and (as Paddle does) uses dilation 1."""
    if algorithm == "VALID":
        return [0, 0] * len(in_hw), list(dilations)[: len(in_hw)]
    if algorithm == "SAME":
        pads = []
        for size, k, s in zip(in_hw, ksize, strides):
            if size is None or size < 0:
                pads += [0, 0]
                continue
            out = (size + s - 1) // s
            total = max((out - 1) * s + k - size, 0)
            pads += [total // 2, total - total // 2]
        return pads, [1] * len(in_hw)
    p = list(paddings)
    if len(p) == len(in_hw):  # one padding per dim: the same before and after
        p = [v for pad in p for v in (pad, pad)]
    return p, list(dilations)[: len(in_hw)]  # Fluid reads one dilation per dim, the first ones


def conv_out_size(size, k, pad_before, pad_after, stride, dilation):
    """Output length along one dim (-1 when the input length is unknown), Fluid's: its C++ division rounds
    toward zero (an extent past the padded input by less than a stride still gives one output)."""
    if size is None or size < 0:
        return -1
    span = size + pad_before + pad_after - (dilation * (k - 1) + 1)
    return (span // stride if span >= 0 else -(-span // stride)) + 1


def unfold_blocks(x_shape, attrs):
    """(out_h, out_w): how many sliding blocks unfold (im2col) takes along H and W of x [N, C, H, W]."""
    (kh, kw), (sh, sw), (pu, pl, pd, pr), (dh, dw) = (
        attrs[k] for k in ("kernel_sizes", "strides", "paddings", "dilations")
    )
    return conv_out_size(x_shape[2], kh, pu, pd, sh, dh), conv_out_size(x_shape[3], kw, pl, pr, sw, dw)


def conv_geometry(x_shape, w_shape, attrs):
    """(paddings [t, b, l, r], dilations, [out_h, out_w]) of conv2d on Input ``x_shape`` [N, C, H, W]
    with Filter ``w_shape`` [M, C/groups, kh, kw]."""
    strides = attrs["strides"]
    pads, dil = conv_paddings(
        attrs["paddings"], attrs["padding_algorithm"], x_shape[2:], w_shape[2:], strides, attrs["dilations"]
    )
    out_hw = [
        conv_out_size(x_shape[2 + i], w_shape[2 + i], pads[2 * i], pads[2 * i + 1], strides[i], dil[i])
        for i in range(2)
    ]
    return pads, dil, out_hw


def channel_mismatch(x_shape, w_shape, groups):
    """Why Input [N, C, ...] and Filter [M, C/groups, k...] of a convolution (2-D or 3-D) do not meet
    (channels, groups), or None. Unknown dims pass."""
    x, w = x_shape, w_shape
    if is_known([x[1], w[1]]) and x[1] != w[1] * groups:
        return (
            f"Input {fmt_shape(x)} has {x[1]} channels but Filter {fmt_shape(w)} with groups={groups} "
            f"expects {w[1] * groups}"
        )
    if is_known([w[0]]) and w[0] % groups:
        return f"Filter {fmt_shape(w)}: num_filters {w[0]} is not divisible by groups={groups}"
    return None


def transpose_channel_mismatch(x_shape, w_shape):
    """Why Input [N, C_in, ...] and Filter [C_in, C_out/groups, k...] of a transposed convolution (2-D or
    3-D) do not meet, or None. Unknown dims pass."""
    x, w = x_shape, w_shape
    if is_known([x[1], w[0]]) and x[1] != w[0]:
        return f"Input {fmt_shape(x)} has {x[1]} channels but Filter {fmt_shape(w)} is for {w[0]}"
    return None


def conv_mismatch(x_shape, w_shape, groups, pads, dil, out_hw):
    """Why Input and Filter of a 2-D or 3-D convolution cannot convolve (channels, groups, fit: ``out_hw``
    the output's spatial sizes), or None. Unknown dims pass."""
    x, w = x_shape, w_shape
    error = channel_mismatch(x, w, groups)
    if error:
        return error
    if any(is_known([x[2 + i]]) and out_hw[i] <= 0 for i in range(len(out_hw))):
        return (
            f"Filter {fmt_shape(w)} (dilations {dil}, paddings {pads}) does not fit Input {fmt_shape(x)}: "
            f"the output would be {'x'.join(str(n) for n in out_hw)}"
        )
    return None


def pool_out_size(size, k, pad_before, pad_after, stride, ceil_mode):
    """Fluid's PoolOutputSize: its C++ division rounds toward zero."""
    if size is None or size < 0:
        return -1
    span = size + pad_before + pad_after - k + (stride - 1 if ceil_mode else 0)
    return (span // stride if span >= 0 else -(-span // stride)) + 1


def adaptive_size(attrs, in_sizes):
    """An adaptive pooling's output size: ksize, or the input's own with global_pooling (Fluid sets ksize to
    the input's size first)."""
    return list(in_sizes) if attrs["global_pooling"] else list(attrs["ksize"])


def pool_geometry(attrs, in_hw):
    """(ksize, strides, paddings [t, b, l, r]) of a pool2d op for an input of spatial size ``in_hw``."""
    if attrs["global_pooling"]:
        return list(in_hw), [1, 1], [0, 0, 0, 0]
    ksize, strides = list(attrs["ksize"]), list(attrs["strides"])
    pads, _ = conv_paddings(attrs["paddings"], attrs["padding_algorithm"], in_hw, ksize, strides, [1, 1])
    return ksize, strides, pads


def pool3d_geometry(attrs, in_dhw):
    """(ksize, strides, paddings [front, back, top, bottom, left, right]) for spatial size ``in_dhw``."""
    if attrs["global_pooling"]:
        return list(in_dhw), [1, 1, 1], [0] * 6
    ksize, strides = list(attrs["ksize"]), list(attrs["strides"])
    p = list(attrs["paddings"])
    if attrs["padding_algorithm"] == "VALID":
        p = [0] * 6
    elif attrs["padding_algorithm"] == "SAME":
        p, _ = conv_paddings(p, "SAME", in_dhw, ksize, strides, [1, 1, 1])
    elif len(p) == 3:
        p = [p[0], p[0], p[1], p[1], p[2], p[2]]
    return ksize, strides, p


def pool3d_out(attrs, in_dhw):
    """[out_d, out_h, out_w] of pool3d (adaptive: ksize itself)."""
    if attrs["adaptive"]:
        return adaptive_size(attrs, in_dhw)
    ksize, strides, pads = pool3d_geometry(attrs, in_dhw)
    return [
        pool_out_size(in_dhw[i], ksize[i], pads[2 * i], pads[2 * i + 1], strides[i], attrs["ceil_mode"])
        for i in range(3)
    ]


def conv_transpose_geometry(x_shape, w_shape, attrs, check_size=True):
    """(paddings [t, b, l, r], dilations, [out_h, out_w], error or None) of conv2d_transpose on Input
    ``x_shape`` [N, C_in, H, W] with Filter ``w_shape`` [C_in, C_out/groups, kh, kw]: out = (in - 1) *
    stride - pads + dilation * (k - 1) + 1 (+ ``output_padding``, 2.x's attribute), or ``output_size``
    when given, which must lie in [that, that + stride) (the sizes conv2d maps back to H and W; not checked
    without ``check_size``: Fluid checks it when the op runs). Unknown dims give -1."""
    strides, out_size = attrs["strides"], list(attrs.get("output_size") or [])
    pads, dil = conv_paddings(
        attrs["paddings"], attrs["padding_algorithm"], x_shape[2:], w_shape[2:], strides, attrs["dilations"]
    )
    out_hw = []
    for i in range(2):
        size = x_shape[2 + i]
        if size is None or size < 0:
            out_hw.append(out_size[i] if out_size else -1)
            continue
        least = (size - 1) * strides[i] - pads[2 * i] - pads[2 * i + 1] + dil[i] * (w_shape[2 + i] - 1) + 1
        if check_size and out_size and not least <= out_size[i] < least + strides[i]:
            return (
                pads,
                dil,
                out_hw,
                (
                    f"output_size {out_size} must be in [{least}, {least + strides[i]}) along "
                    f"dim {2 + i} for Input {fmt_shape(x_shape)} and Filter {fmt_shape(w_shape)}"
                ),
            )
        if least <= 0:
            return (
                pads,
                dil,
                out_hw,
                (f"Filter {fmt_shape(w_shape)} (paddings {pads}) leaves no output for Input {fmt_shape(x_shape)}"),
            )
        extra = list(attrs.get("output_padding") or [0, 0])[i]
        if extra and not extra < max(strides[i], dil[i]):
            return (
                pads,
                dil,
                out_hw,
                (
                    f"output_padding {list(attrs['output_padding'])} must be less than the "
                    f"stride or the dilation along dim {2 + i}"
                ),
            )
        out_hw.append(out_size[i] if out_size else least + extra)
    return pads, dil, out_hw, None


def mask_pool_out(in_dims, attrs):
    """max_pool2d/3d_with_index's output size per dim (-1 where the input's is unknown): ksize when
    adaptive (X's own size with global pooling too, whose ksize Fluid sets to X's), 1 for global pooling,
    else (in + 2 * padding - ksize) / stride + 1 (no ceil_mode; Fluid's C++ division, toward zero)."""
    if attrs["adaptive"]:
        return [-1 if d is None else d for d in in_dims] if attrs["global_pooling"] else list(attrs["ksize"])
    if attrs["global_pooling"]:
        return [1] * len(in_dims)
    return [
        -1 if d is None or d < 0 else pool_out_size(d, k, p, p, s, False)
        for d, k, s, p in zip(in_dims, attrs["ksize"], attrs["strides"], attrs["paddings"])
    ]


def unpool_out(in_dims, attrs):
    """unpool/unpool3d's output size: output_size, else (in - 1) * stride - 2 * padding + ksize per dim."""
    if attrs["output_size"]:
        return list(attrs["output_size"])
    return [
        -1 if d is None or d < 0 else (d - 1) * s - 2 * p + k
        for d, k, s, p in zip(in_dims, attrs["ksize"], attrs["strides"], attrs["paddings"])
    ]
