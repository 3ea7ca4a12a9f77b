"""The op cases of Paddle 2.6's op types that pe added for issue 85 (tools/paddle26_op_oracle.py records
Paddle 2.6.2's values of them): each case one op, built as Paddle's own saved programs hold it (the op type,
its input and output slots, its attributes), on small fixed inputs. Pure numpy: imports neither paddle nor pe.

A case: name -> dict(op, inputs {slot: array | [arrays]}, attrs, outputs [slot | (slot, count)], grad [input
slots whose gradients are recorded: of sum(Out * W), W = weights(Out's shape)]). Float inputs are float64
(their gradients compared in float64), unless the case says otherwise."""
import numpy as np

rng = np.random.default_rng(2026)


def u(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape)


def weights(shape):
    """The fixed weights of a case's loss, sum(Out * W): 0.5 .. 1.36 repeating, in Out's shape."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 + (np.arange(n) % 7) / 7.0).reshape(shape)


def case(op, inputs, attrs=None, outputs=("Out",), grad=()):
    return dict(op=op, inputs=inputs, attrs=attrs or {}, outputs=list(outputs), grad=list(grad))


def _unary(op, x, attrs=None, grad=True):
    return case(op, {"X": x}, attrs, grad=("X",) if grad else ())


CASES = {
    # pointwise_math
    "silu": _unary("silu", u(3, 4, low=-5, high=5)),
    "celu": _unary("celu", u(3, 4), {"alpha": 0.7}),
    "celu_negative_alpha": _unary("celu", u(2, 5), {"alpha": -0.5}, grad=False),
    "tan": _unary("tan", u(3, 4, low=-1.2, high=1.2)),
    "acosh": _unary("acosh", u(3, 4, low=1.1, high=4)),
    "asinh": _unary("asinh", u(3, 4)),
    "atanh": _unary("atanh", u(3, 4, low=-0.9, high=0.9)),
    "log2": _unary("log2", u(3, 4, low=0.2, high=5)),
    "log10": _unary("log10", u(3, 4, low=0.2, high=5)),
    "trunc": _unary("trunc", np.array([[-2.7, -1.5, -0.2, 0.0], [0.4, 1.5, 2.9, 7.01]])),
    "logit": _unary("logit", np.array([[0.05, 0.3, 0.5, 0.9], [0.99, 0.0, 1.0, 1e-9]]), grad=False),
    "logit_eps": _unary("logit", np.array([[0.05, 0.3, 0.5, 0.85], [0.99, 0.02, 0.97, 0.6]]), {"eps": 0.1}),
    "atan2": case("atan2", {"X1": u(3, 4), "X2": u(3, 4)}, grad=("X1", "X2")),
    "atan2_int": case("atan2", {"X1": np.array([1, -2, 3], np.int64), "X2": np.array([2, 2, -1], np.int64)}),
    "elementwise_fmax": case("elementwise_fmax", {"X": u(3, 4), "Y": u(3, 1)}, grad=("X", "Y")),
    "elementwise_fmax_nan": case("elementwise_fmax", {"X": np.array([1.0, np.nan, 3.0, np.nan]),
                                                      "Y": np.array([np.nan, 2.0, 1.0, np.nan])}),
    "elementwise_fmin": case("elementwise_fmin", {"X": u(2, 3, 4), "Y": u(4)}, grad=("X", "Y")),
    "elementwise_heaviside": case("elementwise_heaviside", {"X": np.array([[-1.0, 0.0, 2.0], [0.0, 3.0, -0.5]]),
                                                            "Y": u(2, 3)}),
    "elementwise_heaviside_grad": case("elementwise_heaviside", {"X": np.array([[-1.0, 0.5, 2.0], [-0.2, 3.0, -0.5]]),
                                                                 "Y": u(2, 3)}, grad=("X", "Y")),
    "lerp": case("lerp", {"X": u(3, 4), "Y": u(3, 4), "Weight": u(4, low=0, high=1)}, grad=("X", "Y")),
    # manipulation_v2
    "flatten_contiguous_range": case("flatten_contiguous_range", {"X": u(2, 3, 4, 5)},
                                     {"start_axis": 1, "stop_axis": 2}, outputs=("Out", "XShape"), grad=("X",)),
    "flatten_contiguous_range_negative": case("flatten_contiguous_range", {"X": u(2, 3, 4)},
                                              {"start_axis": 0, "stop_axis": -1}, outputs=("Out", "XShape"),
                                              grad=("X",)),
    "flatten_contiguous_range_0d": case("flatten_contiguous_range", {"X": np.array(2.5)},
                                        {"start_axis": 0, "stop_axis": -1}, outputs=("Out", "XShape")),
    "expand_v2": case("expand_v2", {"X": u(3, 1)}, {"shape": [2, 3, 4]}, grad=("X",)),
    "expand_v2_keep": case("expand_v2", {"X": u(1, 4)}, {"shape": [3, -1]}, grad=("X",)),
    "expand_v2_shape_tensor": case("expand_v2", {"X": u(3, 1), "Shape": np.array([2, 3, 5], np.int32)},
                                   {"shape": [-1, -1, -1]}),
    "expand_as_v2": case("expand_as_v2", {"X": u(1, 3), "Y": u(2, 4, 3)}, {"target_shape": [2, 4, 3]},
                         grad=("X",)),
    "expand_as_v2_attr": case("expand_as_v2", {"X": u(2, 1)}, {"target_shape": [2, 5]}),
    "broadcast_tensors": case("broadcast_tensors", {"X": [u(3, 1), u(4), u(2, 1, 1)]},
                              outputs=(("Out", 3),), grad=("X",)),
}
