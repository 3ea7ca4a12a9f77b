"""Elementwise kernels. Y is reshaped so numpy broadcasting implements Fluid's ``axis`` rule;
gradients sum over the broadcast dims back to each input's shape."""
import numpy as np


def align(x, y, axis):
    """Y reshaped to broadcast against X under Fluid's axis rule (no copy)."""
    if y.ndim >= x.ndim or axis == -1 or axis == x.ndim - y.ndim:
        return y
    return y.reshape((1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim))


def unbroadcast(grad, shape):
    """Sums ``grad`` over the dims that were broadcast to reach it from ``shape``."""
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and grad.shape[i + lead] != 1)
    return grad.sum(axis=axes, keepdims=False).reshape(shape) if axes else grad.reshape(shape)


def _binary(fn):
    def kernel(ins, attrs):
        x, y = ins["X"], ins["Y"]
        return {"Out": fn(x, align(x, y, attrs["axis"])).astype(x.dtype, copy=False)}
    return kernel


elementwise_add = _binary(np.add)
elementwise_sub = _binary(np.subtract)
elementwise_mul = _binary(np.multiply)
elementwise_div = _binary(np.divide)
elementwise_max = _binary(np.maximum)
elementwise_min = _binary(np.minimum)
elementwise_pow = _binary(np.power)


def _grad(local_grads):
    """local_grads(x, y, out, dout) -> (dx, dy) in the broadcast shape."""
    def kernel(ins, attrs):
        x, y, out, dout = ins["X"], ins["Y"], ins["Out"], ins["Out@GRAD"]
        ya = align(x, y, attrs["axis"])
        dx, dy = local_grads(x, ya, out, dout)
        return {"X@GRAD": _reduce_to(dx, out.shape, x),
                "Y@GRAD": _reduce_to(dy, out.shape, ya).reshape(y.shape)}
    return kernel


def _reduce_to(grad, out_shape, like):
    grad = np.broadcast_to(grad, out_shape)
    return unbroadcast(grad, like.shape).astype(like.dtype, copy=False)


elementwise_add_grad = _grad(lambda x, y, out, d: (d, d))
elementwise_sub_grad = _grad(lambda x, y, out, d: (d, -d))
elementwise_mul_grad = _grad(lambda x, y, out, d: (d * y, d * x))
elementwise_div_grad = _grad(lambda x, y, out, d: (d / y, -d * out / y))
# Ties send the gradient to Y, as Fluid does.
elementwise_max_grad = _grad(lambda x, y, out, d: (d * (x > y), d * (x <= y)))
elementwise_min_grad = _grad(lambda x, y, out, d: (d * (x < y), d * (x >= y)))
elementwise_pow_grad = _grad(lambda x, y, out, d: (d * y * np.power(x, y - 1),
                                                   d * out * np.log(np.where(x > 0, x, 1))))
