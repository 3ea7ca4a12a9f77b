"""``paddle.nn.functional``'s activations with 2.x's names and arguments: one registered op each
where pe has one (relu, leaky_relu, elu, gelu, selu, softplus, softshrink, hardshrink, hardsigmoid,
hardswish, swish, relu6, thresholded_relu, maxout, prelu, softmax, log_softmax, celu, rrelu), else a few ops
composed exactly (silu, mish, glu, hardtanh, log_sigmoid, tanhshrink). The
trailing-underscore names build the same ops (a static graph has no in-place form)."""

from .... import layers as L
from ....base.errors import PeError
from ....layers.checks import FLOATS, check_variable_and_dtype
from ....layers.helper import LayerHelper
from ....layers.helper import single as _single
from ... import tensor_create as TC
from ... import tensor_manip as TM
from ... import tensor_math as TMa

__all__ = [
    "relu",
    "relu_",
    "relu6",
    "leaky_relu",
    "leaky_relu_",
    "elu",
    "elu_",
    "celu",
    "gelu",
    "selu",
    "sigmoid",
    "silu",
    "swish",
    "mish",
    "tanh",
    "tanh_",
    "tanhshrink",
    "softplus",
    "softsign",
    "softshrink",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "thresholded_relu",
    "thresholded_relu_",
    "log_sigmoid",
    "maxout",
    "prelu",
    "rrelu",
    "glu",
    "softmax",
    "softmax_",
    "log_softmax",
    "gumbel_softmax",
]


def _act(op_type, x, name=None, **attrs):
    return _single(op_type, x, {"X": [x]}, attrs, name=name)


def relu(x, name=None):
    return _act("relu", x, name)


def relu6(x, name=None):
    return _act("relu6", x, name, threshold=6.0)


def leaky_relu(x, negative_slope=0.01, name=None):
    return _act("leaky_relu", x, name, alpha=float(negative_slope))


def elu(x, alpha=1.0, name=None):
    return _act("elu", x, name, alpha=float(alpha))


def celu(x, alpha=1.0, name=None):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): Paddle's celu op (its gradient at 0 is 1)."""
    if alpha == 0:
        raise ZeroDivisionError("celu: alpha must not be 0")
    return _act("celu", x, name, alpha=float(alpha))


def gelu(x, approximate=False, name=None):
    return _act("gelu", x, name, approximate=bool(approximate))


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=None):
    if scale <= 1.0 or alpha < 0:
        raise ValueError(f"selu: scale={scale} must be > 1 and alpha={alpha} >= 0")
    return _act("selu", x, name, scale=float(scale), alpha=float(alpha))


def sigmoid(x, name=None):
    return _act("sigmoid", x, name)


def silu(x, name=None):
    """x * sigmoid(x): Paddle 2.6's silu op."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "silu")
    return _act("silu", x, name)


def swish(x, name=None):
    return _act("swish", x, name, beta=1.0)


def mish(x, name=None):
    """x * tanh(softplus(x)) (softplus's threshold 20): Paddle 2.6's mish op."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "mish")
    return _act("mish", x, name)


def tanh(x, name=None):
    return _act("tanh", x, name)


def tanhshrink(x, name=None):
    return _act("tanh_shrink", x, name)


def softplus(x, beta=1, threshold=20, name=None):
    return _act("softplus", x, name, beta=float(beta), threshold=float(threshold))


def softsign(x, name=None):
    return _act("softsign", x, name)


def softshrink(x, threshold=0.5, name=None):
    if threshold < 0:
        raise ValueError(f"softshrink: threshold={threshold} must be >= 0")
    return _single("softshrink", x, {"X": [x]}, {"lambda": float(threshold)}, name=name)


def hardshrink(x, threshold=0.5, name=None):
    return _act("hard_shrink", x, name, threshold=float(threshold))


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    return _act("hard_sigmoid", x, name, slope=float(slope), offset=float(offset))


def hardswish(x, name=None):
    return _act("hard_swish", x, name, threshold=6.0, scale=6.0, offset=3.0)


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002 -- Paddle's names
    return TMa.clip(x, min, max, name=name)


def thresholded_relu(x, threshold=1.0, name=None):
    return _act("thresholded_relu", x, name, threshold=float(threshold))


def log_sigmoid(x, name=None):
    return _act("logsigmoid", x, name)


def maxout(x, groups, axis=1, name=None):
    if axis not in (1, -1, 3):
        raise ValueError(f"maxout: axis={axis} must be 1, -1 or 3")
    return _act("maxout", x, name, groups=int(groups), axis=int(axis))


def prelu(x, weight, data_format="NCHW", name=None):
    """max(0, x) + weight * min(0, x); weight has 1 element (all) or one per channel."""
    numel = 1
    for d in weight.shape:
        numel *= d
    mode = "all" if numel == 1 else "channel"
    return _single("prelu", x, {"X": [x], "Alpha": [weight]}, {"mode": mode, "data_format": data_format}, name=name)


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Randomized leaky ReLU: x where x >= 0, else x times a slope drawn from U[lower, upper] per element in
    training, (lower + upper) / 2 otherwise: Paddle's rrelu op (Noise, the slopes, its second output)."""
    check_variable_and_dtype(x, "X", FLOATS, "rrelu")
    for what, v in (("lower", lower), ("upper", upper)):
        if not isinstance(v, (int, float)):
            raise TypeError(f"The {what} value must be a float, but received {type(v).__name__}.")
    if not 0 <= lower <= upper <= 1:
        raise ValueError(f"rrelu: need 0 <= lower ({lower}) <= upper ({upper}) <= 1")
    helper = LayerHelper("rrelu", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    noise = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    attrs = {"lower": float(lower), "upper": float(upper), "is_test": not training}
    helper.append_op("rrelu", {"X": [x]}, {"Out": [out], "Noise": [noise]}, attrs)
    return out


def glu(x, axis=-1, name=None):
    """a * sigmoid(b), where a and b are the halves of x along ``axis`` (in range, else a ValueError,
    as Paddle's); x is a float Variable (else a TypeError)."""
    check_variable_and_dtype(x, "x", FLOATS, "glu")
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"glu: axis={axis} is out of range for x of rank {rank} (expected {-rank} <= axis < {rank})")
    a, b = TM.split(x, 2, axis=axis)
    return TMa.multiply(a, sigmoid(b), name=name)


def _cast_to(x, dtype):
    return x if dtype is None else TM.cast(x, dtype)


def softmax(x, axis=-1, dtype=None, name=None):
    return _act("softmax", _cast_to(x, dtype), name, axis=int(axis))


def log_softmax(x, axis=-1, dtype=None, name=None):
    return _act("log_softmax", _cast_to(x, dtype), name, axis=int(axis))


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """softmax((x + g) / temperature), g Gumbel noise; ``hard`` gives the one-hot of its argmax
    (without the straight-through gradient: the one-hot is a constant of the graph)."""
    shape = [1 if d in (None, -1) else d for d in x.shape]
    u = (
        L.uniform_random_batch_size_like(x, shape, x.dtype, min=1e-10, max=1.0)
        if x.shape and x.shape[0] in (None, -1)
        else L.uniform_random(shape or [1], x.dtype, 1e-10, 1.0)
    )
    if not shape:  # a 0-D x: one draw, 0-D
        u = TM.reshape(u, [])
    gumbel = TMa.scale(TMa.log(TMa.scale(TMa.log(u), -1.0)), -1.0)
    soft = softmax(TMa.scale(TMa.add(x, gumbel), 1.0 / temperature), axis=axis)
    if not hard:
        return soft
    if not x.shape:  # a 0-D x (axis 0 or -1, checked by softmax): the one-hot of one class, 1 (Paddle 2.6's)
        return L.ones_like(soft)
    if axis not in (-1, len(x.shape) - 1):
        raise PeError("gumbel_softmax(hard=True): pe takes the classes on the last axis (axis=-1)")
    return _hard(soft, axis)


def _hard(soft, axis):
    index = TM.unsqueeze(TC.argmax(soft, axis=axis), -1)
    hot = L.one_hot(index, soft.shape[axis])
    return hot


relu_, leaky_relu_, elu_, tanh_, hardtanh_, thresholded_relu_, softmax_ = (
    relu,
    leaky_relu,
    elu,
    tanh,
    hardtanh,
    thresholded_relu,
    softmax,
)
