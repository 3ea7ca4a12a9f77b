import numpy as np


def _as_matrix(a, num_col_dims):
    rows = int(np.prod(a.shape[:num_col_dims]))
    return a.reshape(rows, -1)


def mul(ins, attrs):
    x, y = ins["X"], ins["Y"]
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    out = _as_matrix(x, xd) @ _as_matrix(y, yd)
    return {"Out": out.reshape(x.shape[:xd] + y.shape[yd:])}


def mul_grad_x(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    dx = dout.reshape(-1, _as_matrix(y, yd).shape[1]) @ _as_matrix(y, yd).T
    return {"X@GRAD": dx.reshape(x.shape)}


def mul_grad_y(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    x2 = _as_matrix(x, xd)
    dy = x2.T @ dout.reshape(x2.shape[0], -1)
    return {"Y@GRAD": dy.reshape(y.shape)}


def mean(ins, attrs):
    x = ins["X"]
    return {"Out": np.array([x.mean()], dtype=x.dtype)}


def mean_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": np.full(x.shape, dout.reshape(-1)[0] / max(x.size, 1), dtype=x.dtype)}


def scale(ins, attrs):
    x = ins["X"]
    s, b = attrs["scale"], attrs["bias"]
    out = x * x.dtype.type(s) + x.dtype.type(b) if attrs["bias_after_scale"] else (x + x.dtype.type(b)) * x.dtype.type(s)
    return {"Out": out.astype(x.dtype, copy=False)}


def _axes(x, attrs):
    return tuple(range(x.ndim)) if attrs["reduce_all"] else tuple(d % x.ndim for d in attrs["dim"])


def _reduce(fn):
    def kernel(ins, attrs):
        x = ins["X"]
        out = fn(x, axis=_axes(x, attrs), keepdims=attrs["keep_dim"])
        return {"Out": np.asarray(out, dtype=x.dtype).reshape(out.shape or (1,))}
    return kernel


reduce_sum = _reduce(np.sum)
reduce_mean = _reduce(np.mean)
reduce_max = _reduce(np.max)
reduce_min = _reduce(np.min)


def _expand_back(x, attrs, value):
    """``value`` (the reduced shape) reshaped to broadcast against ``x``."""
    return value.reshape([1 if i in _axes(x, attrs) else n for i, n in enumerate(x.shape)])


def reduce_sum_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": np.broadcast_to(_expand_back(x, attrs, dout), x.shape).astype(x.dtype)}


def reduce_mean_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    count = int(np.prod([x.shape[a] for a in _axes(x, attrs)]))
    return {"X@GRAD": (np.broadcast_to(_expand_back(x, attrs, dout), x.shape) / count).astype(x.dtype)}


def _extreme_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    hit = x == _expand_back(x, attrs, out)
    # Only the first extreme in each reduced group takes the gradient.
    axes = _axes(x, attrs)
    moved = np.moveaxis(hit, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    flat = moved.reshape(moved.shape[:x.ndim - len(axes)] + (-1,))
    first = np.zeros_like(flat)
    np.put_along_axis(first, flat.argmax(axis=-1)[..., None], True, axis=-1)
    first = np.moveaxis(first.reshape(moved.shape), tuple(range(x.ndim - len(axes), x.ndim)), axes)
    return {"X@GRAD": (first * _expand_back(x, attrs, dout)).astype(x.dtype)}


reduce_max_grad = _extreme_grad
reduce_min_grad = _extreme_grad
