"""``paddle.nn.functional``'s pools: max/avg 1-3-D and adaptive 1-3-D over pe's pool2d and pool3d ops
(a 1-D pool is the 2-D one over [N, C, 1, L]). ``stride`` None is the kernel size; padding takes 2.x's
forms ('SAME'/'VALID', an int, one or two per dim). ``return_mask`` (the argmax positions) needs an
op pe lacks and is refused in one line."""
from .... import layers as L
from ....base.errors import PeError
from ... import tensor_manip as TM
from ... import tensor_math as TMa
from .conv import one_d, one_d_padding

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d"]


def _no_mask(fn, return_mask):
    if return_mask:
        raise PeError(f"{fn}(return_mask=True): pe has no max-pool-with-index op; pool without the mask")


def _pool(kind, dims, x, kernel_size, stride, padding, ceil_mode, exclusive, data_format, name):
    stride = kernel_size if stride is None else stride
    if dims == 2:
        return L.pool2d(x, kernel_size, kind, stride, padding, ceil_mode=ceil_mode, name=name,
                        exclusive=exclusive, data_format=data_format)
    return L.pool3d(x, kernel_size, kind, stride, padding, ceil_mode=ceil_mode, name=name, exclusive=exclusive,
                    data_format=data_format)


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
               name=None):
    _no_mask("max_pool2d", return_mask)
    return _pool("max", 2, x, kernel_size, stride, padding, ceil_mode, True, data_format, name)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
               name=None):
    _no_mask("max_pool3d", return_mask)
    return _pool("max", 3, x, kernel_size, stride, padding, ceil_mode, True, data_format, name)


def _divide_override(out, kernel_size, dims, divisor_override):
    """An average with ``divisor_override``: the window sum (non-exclusive average times its size) over it."""
    k = [kernel_size] * dims if isinstance(kernel_size, int) else list(kernel_size)
    size = 1
    for v in k:
        size *= v
    return TMa.scale(out, size / float(divisor_override))


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCHW", name=None):
    exclusive = exclusive and divisor_override is None
    out = _pool("avg", 2, x, kernel_size, stride, padding, ceil_mode, exclusive, data_format, name)
    return out if divisor_override is None else _divide_override(out, kernel_size, 2, divisor_override)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCDHW", name=None):
    exclusive = exclusive and divisor_override is None
    out = _pool("avg", 3, x, kernel_size, stride, padding, ceil_mode, exclusive, data_format, name)
    return out if divisor_override is None else _divide_override(out, kernel_size, 3, divisor_override)


def _pool1d(kind, x, kernel_size, stride, padding, ceil_mode, exclusive, name):
    stride = kernel_size if stride is None else stride
    out = L.pool2d(TM.unsqueeze(x, 2), one_d(kernel_size, 1), kind, one_d(stride, 1), one_d_padding(padding),
                   ceil_mode=ceil_mode, name=name, exclusive=exclusive)
    return TM.squeeze(out, 2)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    _no_mask("max_pool1d", return_mask)
    return _pool1d("max", x, kernel_size, stride, padding, ceil_mode, True, name)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
    return _pool1d("avg", x, kernel_size, stride, padding, ceil_mode, exclusive, name)


def _sizes(x, output_size, dims, channel_last=False):
    sizes = [output_size] * dims if isinstance(output_size, int) or output_size is None else list(output_size)
    spatial = x.shape[1:1 + dims] if channel_last else x.shape[2:2 + dims]
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
    _no_mask("adaptive_max_pool2d", return_mask)
    return _adaptive("max", 2, x, output_size, "NCHW", name)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    _no_mask("adaptive_max_pool3d", return_mask)
    return _adaptive("max", 3, x, output_size, "NCDHW", name)


def _adaptive1d(kind, x, output_size, name):
    size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    out = L.adaptive_pool2d(TM.unsqueeze(x, 2), [1, int(size)], kind, name=name)
    return TM.squeeze(out, 2)


def adaptive_avg_pool1d(x, output_size, name=None):
    return _adaptive1d("avg", x, output_size, name)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    _no_mask("adaptive_max_pool1d", return_mask)
    return _adaptive1d("max", x, output_size, name)
