"""``paddle.nn.functional``'s common functions: linear, bilinear, embedding, one_hot, pad, zeropad2d,
interpolate/upsample (pe's nearest/bilinear/trilinear ``_interp_v2`` ops), cosine_similarity,
pairwise_distance, label_smooth, pixel_shuffle, channel_shuffle, affine_grid, grid_sample,
sequence_mask and gather_tree, each lowering to pe's registered ops."""

import numbers

from .... import layers as L
from ....base.errors import PeError
from ....framework.variable import Variable
from ....layers.checks import check_type, check_variable_and_dtype
from ....layers.helper import LayerHelper, single as _single
from ... import tensor_create as TC
from ...alpha_keywords import or_alpha
from ... import tensor_manip as TM
from ... import tensor_math as TMa
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = [
    "linear",
    "bilinear",
    "embedding",
    "one_hot",
    "pad",
    "zeropad2d",
    "interpolate",
    "upsample",
    "cosine_similarity",
    "pairwise_distance",
    "label_smooth",
    "pixel_shuffle",
    "channel_shuffle",
    "affine_grid",
    "grid_sample",
    "sequence_mask",
    "gather_tree",
    "pixel_unshuffle",
    "temporal_shift",
]


def linear(x, weight, bias=None, name=None):
    """x @ weight + bias, weight [in_features, out_features]."""
    out = TMa.matmul(x, weight)
    return out if bias is None else TMa.add(out, bias, name=name)


def bilinear(x1, x2, weight, bias=None, name=None):
    """out[:, k] = x1 @ weight[k] @ x2^T (per row) + bias[k]; weight [out, in1, in2]."""
    t = TMa.matmul(TM.unsqueeze(x1, 1), weight)  # [N, out, in2]
    out = TMa.sum(TMa.multiply(t, TM.unsqueeze(x2, 1)), axis=-1)
    return out if bias is None else TMa.add(out, bias, name=name)


def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """The rows of ``weight`` at the ids ``x`` (any shape); rows at padding_idx read as zeros."""
    vocab = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif not -vocab <= padding_idx < vocab:
        raise ValueError(f"embedding: padding_idx={padding_idx} must be in [-{vocab}, {vocab})")
    elif padding_idx < 0:
        padding_idx += vocab
    return _single(
        "lookup_table_v2",
        x,
        {"W": [weight], "Ids": [x]},
        {"padding_idx": int(padding_idx), "is_sparse": bool(sparse)},
        name=name,
        dtype=weight.dtype,
    )


def one_hot(x, num_classes, name=None):
    """The float32 one-hot of the int ids ``x``: shape x.shape + [num_classes] (one_hot_v2; an int Tensor
    ``num_classes`` is its depth_tensor, read when the program runs)."""
    check_type(num_classes, "num_classes", (numbers.Integral, Variable), "one_hot")
    check_variable_and_dtype(x, "input", ("int32", "int64"), "one_hot_v2")
    inputs, attrs = {"X": [x]}, {"allow_out_of_range": False}
    if isinstance(num_classes, Variable):
        num_classes.stop_gradient = True
        inputs["depth_tensor"] = [num_classes]
    else:
        attrs["depth"] = int(num_classes)
    return _single("one_hot_v2", x, inputs, attrs, name=name, dtype="float32", stop_gradient=True)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "replicate", "circular": "circular"}


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """Pads x. A ``pad`` of 2 * ndim ints (constant mode) pads every dim, first dim first; otherwise it
    pads the spatial dims from the last one on: [left, right(, top, bottom(, front, back))]."""
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode={mode!r} must be one of {list(_PAD_MODES)}")
    if isinstance(pad, Variable):
        return _pad_by_tensor(x, pad, mode, value, data_format, name)
    pad = [int(p) for p in (pad.tolist() if hasattr(pad, "tolist") else pad)]
    ndim = len(x.shape)
    if mode == "constant" and len(pad) == 2 * ndim:
        return L.pad(x, pad, float(value), name=name)
    if ndim not in (3, 4, 5) or len(pad) != 2 * (ndim - 2):
        raise ValueError(
            f"pad: x {list(x.shape)} with mode={mode!r} takes {2 * (ndim - 2)} paddings (2 per spatial dim), got {pad}"
        )
    channel_last = data_format in ("NLC", "NHWC", "NDHWC")
    x5 = x
    for _ in range(5 - ndim):
        x5 = TM.unsqueeze(x5, 1 if channel_last else 2)
    pads = pad + [0] * (6 - len(pad))
    out = _single(
        "pad3d",
        x5,
        {"X": [x5]},
        {
            "paddings": pads,
            "mode": _PAD_MODES[mode],
            "value": float(value),
            "data_format": "NDHWC" if channel_last else "NCDHW",
        },
        name=name,
    )
    for _ in range(5 - ndim):
        out = TM.squeeze(out, 1 if channel_last else 2)
    return out


def _pad_by_tensor(x, pad, mode, value, data_format, name):
    """F.pad with ``pad`` an int Tensor (2 values per spatial dim, read when the program runs), as Paddle 2.6
    builds it: x of 3 or 4 dims unsqueezed to 5, the Tensor completed with int32 zeros (concat) for the dims
    added, pad3d's Paddings input, the added dims squeezed again."""
    ndim, channel_last = len(x.shape), data_format in ("NLC", "NHWC", "NDHWC")
    if ndim not in (3, 4, 5):
        raise ValueError(f"pad: x {list(x.shape)} with a Tensor pad must be 3-, 4- or 5-D")
    added = {3: [2, 3] if channel_last else [3, 4], 4: [1] if channel_last else [2], 5: []}[ndim]
    if ndim == 3:
        pad = L.concat([TC.zeros([4], "int32"), pad], axis=0)
    elif ndim == 4:
        pad = L.concat([pad, TC.zeros([2], "int32")], axis=0)
    x5 = TM.unsqueeze(x, added) if added else x
    helper = LayerHelper("pad3d", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    attrs = {"mode": _PAD_MODES[mode], "value": float(value), "data_format": "NDHWC" if channel_last else "NCDHW"}
    helper.append_op("pad3d", {"X": [x5], "Paddings": [pad]}, {"Out": [out]}, attrs)
    return TM.squeeze(out, added) if added else out


def zeropad2d(x, padding, data_format="NCHW", name=None):
    padding = [padding] * 4 if isinstance(padding, int) else list(padding)
    return pad(x, padding, "constant", 0.0, data_format, name)


_METHODS = {
    "nearest": ("nearest_interp_v2", 4),
    "bilinear": ("bilinear_interp_v2", 4),
    "trilinear": ("trilinear_interp_v2", 5),
    "bicubic": ("bicubic_interp_v2", 4),
    "linear": ("bilinear_interp_v2", 3),
}


@or_alpha(L.image_resize, {"input", "out_shape", "scale", "resample", "actual_shape"})  # 2.0-alpha's interpolate
def interpolate(
    x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0, data_format="NCHW", name=None
):
    """Resizes the spatial dims to ``size`` or by ``scale_factor`` ('nearest', 'linear' (3-D),
    'bilinear' and 'bicubic' (4-D), 'trilinear' (5-D)); 'area' is the adaptive average pool to ``size`` (Paddle
    2.6's, which takes x as channels first whatever data_format says)."""
    check_type(x, "x", Variable, "interpolate")
    mode = mode.lower()
    if mode == "area":
        return _area(x, size)
    if mode not in _METHODS:
        raise ValueError(f"interpolate: mode={mode!r}: one of {sorted(_METHODS)} and 'area'")
    op_type, rank = _METHODS[mode]
    if mode == "nearest" and len(x.shape) in (3, 5):  # (Paddle 2.6 resizes them; pe's kernels do 4-D only)
        raise PeError(
            f"interpolate: mode='nearest' of a {len(x.shape)}-D x {list(x.shape)}: pe's nearest_interp_v2 "
            f"resizes 4-D x only"
        )
    if len(x.shape) != rank:
        raise ValueError(f"interpolate: mode={mode!r} takes a {rank}-D x, got {list(x.shape)}")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    channel_last = data_format in ("NWC", "NHWC", "NDHWC")
    if rank == 3:
        x = TM.unsqueeze(x, 1 if channel_last else 2)
    n = len(x.shape) - 2
    attrs = {
        "out_d": -1,
        "out_h": -1,
        "out_w": -1,
        "scale": [],
        "interp_method": op_type.split("_")[0],
        "align_corners": bool(align_corners),
        "align_mode": int(align_mode),
        "data_layout": "NHWC" if channel_last else "NCHW",
    }
    inputs = {"X": [x]}
    if isinstance(size, Variable) or (isinstance(size, (list, tuple)) and any(isinstance(s, Variable) for s in size)):
        inputs.update(_size_tensors(size, rank, attrs))
    elif size is not None:
        size = [size] * (n if rank != 3 else 1) if isinstance(size, int) else list(size)
        size = [1] + size if rank == 3 else size
        attrs.update(zip(("out_d", "out_h", "out_w")[3 - n :], [int(s) for s in size]))
    else:
        scales = [scale_factor] * n if isinstance(scale_factor, (int, float)) else list(scale_factor)
        attrs["scale"] = [1.0] + [float(s) for s in scales] if rank == 3 else [float(s) for s in scales]
    out = _single(op_type, x, inputs, attrs, name=name)
    return TM.squeeze(out, 1 if channel_last else 2) if rank == 3 else out


def _size_tensors(size, rank, attrs):
    """Paddle 2.6's run-time sizes: an int Tensor ``size`` (cast to int32) is the OutSize input; a list holding
    int Tensors of one value is the SizeTensor list (its ints as int32 [1] constants, their attributes kept).
    A 3-D x (resized as [N, C, 1, W]) takes the list form, its height the constant 1."""
    keys = {3: ("out_h", "out_w"), 4: ("out_h", "out_w"), 5: ("out_d", "out_h", "out_w")}[rank]
    if isinstance(size, Variable):
        if len(size.shape) != 1 or size.shape[0] not in (rank - 2, -1):
            raise ValueError(f"interpolate: a Tensor size must be 1-D of {rank - 2} values, got {list(size.shape)}")
        size = L.cast(size, "int32")
        size.stop_gradient = True
        if rank != 3:
            return {"OutSize": [size]}
        size = [size]
    if len(size) != rank - 2:
        raise ValueError(f"interpolate: size has {len(size)} values; x of {rank} dims takes {rank - 2}")
    size = [1] + list(size) if rank == 3 else list(size)
    tensors = []
    for key, dim in zip(keys, size):
        if isinstance(dim, Variable):
            dim.stop_gradient = True
            tensors.append(dim)
        else:
            attrs[key] = int(dim)
            tensors.append(L.fill_constant([1], "int32", int(dim), force_cpu=True))
    return {"SizeTensor": tensors}


def upsample(
    x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0, data_format="NCHW", name=None
):
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format, name)


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) along ``axis``."""
    w12 = TMa.sum(TMa.multiply(x1, x2), axis=axis)
    w1 = TMa.sum(TMa.square(x1), axis=axis)
    w2 = TMa.sum(TMa.square(x2), axis=axis)
    return TMa.divide(w12, TMa.sqrt(TMa.clip(TMa.multiply(w1, w2), min=eps * eps)))


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """||x - y + epsilon||_p along the last dim."""
    return TMa.norm(TMa.scale(TMa.subtract(x, y), 1.0, float(epsilon)), p, axis=-1, keepdim=keepdim, name=name)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    return L.label_smooth(label, prior_dist, float(epsilon), label.dtype, name)


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Paddle 2.6's pixel_shuffle op, its data_format given (NHWC: channels last)."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"pixel_shuffle: data_format={data_format!r} must be 'NCHW' or 'NHWC'")
    attrs = {"upscale_factor": int(upscale_factor), "data_format": data_format}
    return _single("pixel_shuffle", x, {"X": [x]}, attrs, name=name)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    if data_format != "NCHW":
        raise PeError(f"channel_shuffle: data_format={data_format!r}: pe's op takes NCHW")
    return _single("shuffle_channel", x, {"X": [x]}, {"group": int(groups)}, name=name)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    helper = LayerHelper("affine_grid", name=name)
    out = helper.create_variable_for_type_inference(theta.dtype)
    helper.append_op(
        "affine_grid",
        {"Theta": [theta]},
        {"Output": [out]},
        {"output_shape": [int(s) for s in out_shape], "align_corners": bool(align_corners)},
    )
    return out


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    helper = LayerHelper("grid_sampler", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "grid_sampler",
        {"X": [x], "Grid": [grid]},
        {"Output": [out]},
        {"mode": mode, "padding_mode": padding_mode, "align_corners": bool(align_corners)},
    )
    return out


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    return L.sequence_mask(x, maxlen, dtype, name)


def gather_tree(ids, parents):
    return L.gather_tree(ids, parents)


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """pixel_shuffle's inverse: [N, C, H, W] -> [N, C * r * r, H / r, W / r]."""
    if data_format != "NCHW":
        raise PeError(f"pixel_unshuffle: data_format={data_format!r}: pe takes NCHW")
    r = int(downscale_factor)
    _, c, h, w = x.shape
    if any(d is None or d < 0 for d in (c, h, w)) or h % r or w % r:
        raise ValueError(f"pixel_unshuffle: x {list(x.shape)} needs known C, H, W with H and W divisible by {r}")
    six = TM.reshape(x, [0, c, h // r, r, w // r, r])
    return TM.reshape(TM.transpose(six, [0, 1, 3, 5, 2, 4]), [0, c * r * r, h // r, w // r])


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """x [N * seg_num, C, H, W]: the first C * shift_ratio channels take the previous segment's values,
    the next as many the following segment's, zeros at the ends; the rest stay."""
    if data_format != "NCHW":
        raise PeError(f"temporal_shift: data_format={data_format!r}: pe takes NCHW")
    _, c, h, w = x.shape
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    five = TM.reshape(x, [-1, int(seg_num), c, h, w])
    padded = pad(five, [0, 0, 1, 1, 0, 0, 0, 0, 0, 0])  # a zero segment at each end
    parts = [
        TM.slice(padded, [1, 2], [0, 0], [int(seg_num), c1]) if c1 else None,  # from t - 1
        TM.slice(padded, [1, 2], [2, c1], [int(seg_num) + 2, c2]) if c2 > c1 else None,  # from t + 1
        TM.slice(five, [2], [c2], [c]) if c > c2 else None,
    ]
    return TM.reshape(TM.concat([p for p in parts if p is not None], axis=2), [-1, c, h, w])


def _area(x, size):
    """interpolate's 'area' mode: Paddle 2.6's adaptive average pool of x (3-, 4- or 5-D) to ``size``."""
    if size is None or (isinstance(size, (list, tuple)) and not size):
        raise ValueError("interpolate: output size can not be None or empty in 'area' mode")
    pools = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}
    if len(x.shape) not in pools:
        raise ValueError(f"interpolate: mode='area' takes a 3-, 4- or 5-D x, got {list(x.shape)}")
    return pools[len(x.shape)](x, size)
