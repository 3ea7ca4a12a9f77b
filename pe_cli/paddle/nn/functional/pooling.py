"""``paddle.nn.functional``'s pools: max/avg 1-3-D and adaptive 1-3-D over pe's pool2d and pool3d ops
(a 1-D pool is the 2-D one over [N, C, 1, L]). ``stride`` None is the kernel size; padding takes 2.x's
forms ('SAME'/'VALID', an int, one or two per dim). ``return_mask`` (max pools) gives (out, mask)
through the max_pool2d/3d_with_index ops: the flat position of each window's maximum in its plane, as
int32 (NCHW / NCDHW only, no ceil_mode, symmetric paddings, 'SAME' padding none, as Paddle's);
max_unpool1d/2d/3d write values back at such positions (the unpool / unpool3d ops)."""

from .... import layers as L
from ....base.errors import ArgumentAssertionError
from ....layers.helper import LayerHelper
from ....layers.shape_tensor import holds_variable, shape_tensor_list
from ... import tensor_manip as TM
from ... import tensor_math as TMa
from .conv import one_d, one_d_padding

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


def _ints(value, n, what):
    v = [int(value)] * n if isinstance(value, int) else [int(q) for q in value]
    if len(v) != n:
        raise ValueError(f"{what} must be an int or {n} ints, got {value!r}")
    return v


def _mask_paddings(padding, n, fn):
    """Paddle's paddings for a pool with its mask: n per-dim values ('SAME'/'VALID': none)."""
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise ValueError(f"{fn}: padding={padding!r} must be 'SAME', 'VALID', an int or a list")
        return [0] * n
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0], (list, tuple)):
        padding = [v for pair in padding[-n:] for v in pair]
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * n:
        if list(padding[0::2]) != list(padding[1::2]):
            raise ValueError(f"{fn}(return_mask=True): paddings {list(padding)} must be the same before and after")
        return [int(v) for v in padding[0::2]]
    return _ints(padding, n, f"{fn}: padding")


def _with_mask(n, x, kernel_size, stride, padding, adaptive, fn, name):
    """(out, mask) of max_pool{n}d_with_index over NC... x."""
    helper = LayerHelper(f"max_pool{n}d_with_index", name=name)
    ksize = _ints(kernel_size, n, f"{fn}: kernel_size")
    strides = ksize if stride is None else _ints(stride, n, f"{fn}: stride")
    paddings = [0] * n if adaptive else _mask_paddings(padding, n, fn)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        f"max_pool{n}d_with_index",
        {"X": [x]},
        {"Out": [out], "Mask": [mask]},
        {"ksize": ksize, "strides": strides, "paddings": paddings, "adaptive": bool(adaptive), "global_pooling": False},
    )
    return out, mask


def _mask_format(fn, data_format, channels_first):
    if data_format != channels_first:
        raise ValueError(f"{fn}: with return_mask=True data_format must be {channels_first}, got {data_format!r}")


def _pool(kind, dims, x, kernel_size, stride, padding, ceil_mode, exclusive, data_format, name):
    stride = kernel_size if stride is None else stride
    if dims == 2:
        return L.pool2d(
            x,
            kernel_size,
            kind,
            stride,
            padding,
            ceil_mode=ceil_mode,
            name=name,
            exclusive=exclusive,
            data_format=data_format,
        )
    return L.pool3d(
        x,
        kernel_size,
        kind,
        stride,
        padding,
        ceil_mode=ceil_mode,
        name=name,
        exclusive=exclusive,
        data_format=data_format,
    )


def max_pool2d(
    x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW", name=None
):
    if return_mask:
        _mask_format("max_pool2d", data_format, "NCHW")
        return _with_mask(2, x, kernel_size, stride, padding, False, "max_pool2d", name)
    return _pool("max", 2, x, kernel_size, stride, padding, ceil_mode, True, data_format, name)


def max_pool3d(
    x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW", name=None
):
    if return_mask:
        _mask_format("max_pool3d", data_format, "NCDHW")
        return _with_mask(3, x, kernel_size, stride, padding, False, "max_pool3d", name)
    return _pool("max", 3, x, kernel_size, stride, padding, ceil_mode, True, data_format, name)


def _divide_override(out, kernel_size, dims, divisor_override):
    """An average with ``divisor_override``: the window sum (non-exclusive average times its size) over it."""
    k = [kernel_size] * dims if isinstance(kernel_size, int) else list(kernel_size)
    size = 1
    for v in k:
        size *= v
    return TMa.scale(out, size / float(divisor_override))


def avg_pool2d(
    x,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    exclusive=True,
    divisor_override=None,
    data_format="NCHW",
    name=None,
):
    exclusive = exclusive and divisor_override is None
    out = _pool("avg", 2, x, kernel_size, stride, padding, ceil_mode, exclusive, data_format, name)
    return out if divisor_override is None else _divide_override(out, kernel_size, 2, divisor_override)


def avg_pool3d(
    x,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    exclusive=True,
    divisor_override=None,
    data_format="NCDHW",
    name=None,
):
    exclusive = exclusive and divisor_override is None
    out = _pool("avg", 3, x, kernel_size, stride, padding, ceil_mode, exclusive, data_format, name)
    return out if divisor_override is None else _divide_override(out, kernel_size, 3, divisor_override)


def _pool1d(kind, x, kernel_size, stride, padding, ceil_mode, exclusive, name):
    stride = kernel_size if stride is None else stride
    out = L.pool2d(
        TM.unsqueeze(x, 2),
        one_d(kernel_size, 1),
        kind,
        one_d(stride, 1),
        one_d_padding(padding),
        ceil_mode=ceil_mode,
        name=name,
        exclusive=exclusive,
    )
    return TM.squeeze(out, 2)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    if return_mask:
        pad = _mask_paddings(padding, 1, "max_pool1d")
        out, mask = _with_mask(
            2,
            TM.unsqueeze(x, 2),
            [1] + _ints(kernel_size, 1, "max_pool1d: kernel_size"),
            None if stride is None else [1] + _ints(stride, 1, "max_pool1d: stride"),
            [0] + pad,
            False,
            "max_pool1d",
            name,
        )
        return TM.squeeze(out, 2), TM.squeeze(mask, 2)
    return _pool1d("max", x, kernel_size, stride, padding, ceil_mode, True, name)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
    return _pool1d("avg", x, kernel_size, stride, padding, ceil_mode, exclusive, name)


def _sizes(x, output_size, dims, channel_last=False):
    sizes = [output_size] * dims if isinstance(output_size, int) or output_size is None else list(output_size)
    spatial = x.shape[1 : 1 + dims] if channel_last else x.shape[2 : 2 + dims]
    return [int(spatial[i]) if s is None else int(s) for i, s in enumerate(sizes)]


def _adaptive(kind, dims, x, output_size, data_format, name):
    channel_last = data_format in ("NHWC", "NDHWC")
    if channel_last:
        x = TM.transpose(x, [0, dims + 1] + list(range(1, dims + 1)))
    sizes = _sizes(x, output_size, dims)
    pool = L.adaptive_pool2d if dims == 2 else L.adaptive_pool3d
    out = pool(x, sizes, kind, name=name)
    return TM.transpose(out, [0] + list(range(2, dims + 2)) + [1]) if channel_last else out


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    return _adaptive("avg", 2, x, output_size, data_format, name)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    return _adaptive("avg", 3, x, output_size, data_format, name)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    if return_mask:
        return _with_mask(2, x, _sizes(x, output_size, 2), None, 0, True, "adaptive_max_pool2d", name)
    return _adaptive("max", 2, x, output_size, "NCHW", name)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    if return_mask:
        return _with_mask(3, x, _sizes(x, output_size, 3), None, 0, True, "adaptive_max_pool3d", name)
    return _adaptive("max", 3, x, output_size, "NCDHW", name)


def _adaptive1d(kind, x, output_size, name):
    size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    out = L.adaptive_pool2d(TM.unsqueeze(x, 2), [1, int(size)], kind, name=name)
    return TM.squeeze(out, 2)


def adaptive_avg_pool1d(x, output_size, name=None):
    return _adaptive1d("avg", x, output_size, name)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    if return_mask:
        size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
        out, mask = _with_mask(2, TM.unsqueeze(x, 2), [1, int(size)], None, 0, True, "adaptive_max_pool1d", name)
        return TM.squeeze(out, 2), TM.squeeze(mask, 2)
    return _adaptive1d("max", x, output_size, name)


def _unpool_size(x, ksize, strides, paddings, output_size, fn):
    """Paddle's _unpool_output_size: (in - 1) * stride + ksize - 2 * padding per dim, or output_size
    (its last n entries), which must lie strictly within one stride of that."""
    n = len(ksize)
    spatial = x.shape[-n:]
    if any(d is None or d < 0 for d in spatial):
        raise ValueError(f"{fn}: x's spatial size {list(x.shape)} must be known when the program is built")
    default = [(spatial[d] - 1) * strides[d] + ksize[d] - 2 * paddings[d] for d in range(n)]
    if output_size is None:
        return default
    if not isinstance(output_size, (list, tuple)):  # (Paddle's assert: a Tensor too)
        raise ArgumentAssertionError(f"{fn}: output_size must be None, a list or a tuple, got {output_size!r}")
    sizes = list(output_size[2:] if len(output_size) == n + 2 else output_size)
    if len(sizes) != n:
        raise ValueError(f"{fn}: output_size {list(output_size)} must have {n} or {n + 2} entries")
    if holds_variable(sizes):  # read when the op runs, unchecked (Paddle 2.6's VARS attribute)
        return sizes
    sizes = [int(v) for v in sizes]
    for d in range(n):
        if not default[d] - strides[d] < sizes[d] < default[d] + strides[d]:
            raise ValueError(
                f"{fn}: invalid output_size {sizes}: dim {d} must be within ({default[d] - strides[d]}, "
                f"{default[d] + strides[d]})"
            )
    return sizes


def _unpool(n, x, indices, kernel_size, stride, padding, output_size, fn, name):
    ksize = _ints(kernel_size, n, f"{fn}: kernel_size")
    strides = ksize if stride is None else _ints(stride, n, f"{fn}: stride")
    paddings = _ints(padding, n, f"{fn}: padding")
    sizes = _unpool_size(x, ksize, strides, paddings, output_size, fn)
    helper = LayerHelper("unpool" if n == 2 else "unpool3d", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    if holds_variable(sizes) and n == 3:  # (Paddle 2.6's attribute check)
        raise ValueError(f"{fn}: output_size holds a Variable; Paddle 2.6's unpool3d takes only ints there")
    if holds_variable(sizes):  # Paddle's VARS attribute (ints made constants), read when the op runs
        sizes = shape_tensor_list(f"{fn}: output_size", sizes)
    helper.append_op(
        "unpool" if n == 2 else "unpool3d",
        {"X": [x], "Indices": [indices]},
        {"Out": [out]},
        {"unpooling_type": "max", "ksize": ksize, "strides": strides, "paddings": paddings, "output_size": sizes},
    )
    return out


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
    """max_pool1d's inverse: x [N, C, L] written at ``indices`` (max_pool1d's mask) into zeros."""
    if data_format != "NCL":
        raise ValueError(f"max_unpool1d: data_format must be 'NCL', got {data_format!r}")
    k = _ints(kernel_size, 1, "max_unpool1d: kernel_size")
    s = None if stride is None else _ints(stride, 1, "max_unpool1d: stride")
    size = None if output_size is None else [1] + list(output_size)[-1:]
    out = _unpool(
        2,
        TM.unsqueeze(x, 2),
        TM.unsqueeze(indices, 2),
        [1] + k,
        None if s is None else [1] + s,
        [0] + _ints(padding, 1, "max_unpool1d: padding"),
        size,
        "max_unpool1d",
        name,
    )
    return TM.squeeze(out, 2)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
    """max_pool2d's inverse: x [N, C, H, W] written at ``indices`` (max_pool2d's mask) into zeros."""
    if data_format != "NCHW":
        raise ValueError(f"max_unpool2d: data_format must be 'NCHW', got {data_format!r}")
    return _unpool(2, x, indices, kernel_size, stride, padding, output_size, "max_unpool2d", name)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
    """max_pool3d's inverse: x [N, C, D, H, W] written at ``indices`` (max_pool3d's mask) into zeros."""
    if data_format != "NCDHW":
        raise ValueError(f"max_unpool3d: data_format must be 'NCDHW', got {data_format!r}")
    return _unpool(3, x, indices, kernel_size, stride, padding, output_size, "max_unpool3d", name)
