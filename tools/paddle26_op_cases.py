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


def case(op, inputs, attrs=None, outputs=("Out",), grad=(), kink=False):
    """``kink``: the inputs sit where the op is not differentiable (ties of a max): its gradient is compared
    with Paddle's only, not with finite differences."""
    return dict(op=op, inputs=inputs, attrs=attrs or {}, outputs=list(outputs), grad=list(grad), kink=kink)


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
    "elementwise_fmax_nan": case(
        "elementwise_fmax", {"X": np.array([1.0, np.nan, 3.0, np.nan]), "Y": np.array([np.nan, 2.0, 1.0, np.nan])}
    ),
    "elementwise_fmin": case("elementwise_fmin", {"X": u(2, 3, 4), "Y": u(4)}, grad=("X", "Y")),
    "elementwise_heaviside": case(
        "elementwise_heaviside", {"X": np.array([[-1.0, 0.0, 2.0], [0.0, 3.0, -0.5]]), "Y": u(2, 3)}
    ),
    "elementwise_heaviside_grad": case(
        "elementwise_heaviside", {"X": np.array([[-1.0, 0.5, 2.0], [-0.2, 3.0, -0.5]]), "Y": u(2, 3)}, grad=("X", "Y")
    ),
    "lerp": case("lerp", {"X": u(3, 4), "Y": u(3, 4), "Weight": u(4, low=0, high=1)}, grad=("X", "Y")),
    # manipulation_v2
    "flatten_contiguous_range": case(
        "flatten_contiguous_range",
        {"X": u(2, 3, 4, 5)},
        {"start_axis": 1, "stop_axis": 2},
        outputs=("Out", "XShape"),
        grad=("X",),
    ),
    "flatten_contiguous_range_negative": case(
        "flatten_contiguous_range",
        {"X": u(2, 3, 4)},
        {"start_axis": 0, "stop_axis": -1},
        outputs=("Out", "XShape"),
        grad=("X",),
    ),
    "flatten_contiguous_range_0d": case(
        "flatten_contiguous_range", {"X": np.array(2.5)}, {"start_axis": 0, "stop_axis": -1}, outputs=("Out", "XShape")
    ),
    "expand_v2": case("expand_v2", {"X": u(3, 1)}, {"shape": [2, 3, 4]}, grad=("X",)),
    "expand_v2_keep": case("expand_v2", {"X": u(1, 4)}, {"shape": [3, -1]}, grad=("X",)),
    "expand_v2_shape_tensor": case(
        "expand_v2", {"X": u(3, 1), "Shape": np.array([2, 3, 5], np.int32)}, {"shape": [-1, -1, -1]}
    ),
    "expand_as_v2": case("expand_as_v2", {"X": u(1, 3), "Y": u(2, 4, 3)}, {"target_shape": [2, 4, 3]}, grad=("X",)),
    "expand_as_v2_attr": case("expand_as_v2", {"X": u(2, 1)}, {"target_shape": [2, 5]}),
    "broadcast_tensors": case(
        "broadcast_tensors", {"X": [u(3, 1), u(4), u(2, 1, 1)]}, outputs=(("Out", 3),), grad=("X",)
    ),
}

_TIES = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 0.5, 0.5, 0.5], [-1.0, 2.0, 0.0, 2.0]])
CASES.update(
    {
        # reduction
        "reduce_amax": case("reduce_amax", {"X": _TIES}, {"dim": [1]}, grad=("X",), kink=True),
        "reduce_amax_all": case(
            "reduce_amax", {"X": _TIES}, {"dim": [0, 1], "reduce_all": True}, grad=("X",), kink=True
        ),
        "reduce_amax_distinct": case("reduce_amax", {"X": u(3, 4, 2)}, {"dim": [-1, 0]}, grad=("X",)),
        "reduce_amin": case("reduce_amin", {"X": u(2, 3, 4)}, {"dim": [0, 2], "keep_dim": True}, grad=("X",)),
        "reduce_amin_ties": case("reduce_amin", {"X": _TIES}, {"dim": [0]}, grad=("X",), kink=True),
        "logsumexp": case("logsumexp", {"X": u(3, 4, 5)}, {"axis": [1]}, grad=("X",)),
        "logsumexp_keepdim": case("logsumexp", {"X": u(3, 4, 5)}, {"axis": [0, 2], "keepdim": True}, grad=("X",)),
        "logsumexp_all": case("logsumexp", {"X": u(3, 4)}, {"axis": [], "reduce_all": True}, grad=("X",)),
        "logsumexp_large": case("logsumexp", {"X": np.array([[1000.0, 1000.0], [-1000.0, 5.0]])}, {"axis": [-1]}),
    }
)

_SPECIAL = np.array([[1.0, np.inf, -np.inf, np.nan], [0.0, -2.5, 1e300, np.nan]])
CASES.update(
    {
        # logic
        "isclose": case(
            "isclose",
            {
                "Input": np.array([1.0, 1.00001, 1.1, np.nan, np.inf, 0.0]),
                "Other": np.array([1.0, 1.0, 1.0, np.nan, np.inf, 1e-9]),
            },
        ),
        "isclose_equal_nan": case(
            "isclose",
            {"Input": np.array([[1.0, np.nan], [2.0, 3.0]]), "Other": np.array([[1.05, np.nan], [2.5, 3.0]])},
            {"rtol": "0.1", "atol": "0.0", "equal_nan": True},
        ),
        "isfinite_v2": case("isfinite_v2", {"X": _SPECIAL}),
        "isinf_v2": case("isinf_v2", {"X": _SPECIAL}),
        "isnan_v2": case("isnan_v2", {"X": _SPECIAL}),
        "equal_all": case(
            "equal_all", {"X": np.array([[1, 2], [3, 4]], np.int32), "Y": np.array([[1, 2], [3, 4]], np.int32)}
        ),
        "equal_all_differ": case("equal_all", {"X": np.array([1.0, 2.0]), "Y": np.array([1.0, 2.5])}),
        # selecting
        "top_k_v2": case("top_k_v2", {"X": u(3, 6)}, {"k": 3}, outputs=("Out", "Indices"), grad=("X",)),
        "top_k_v2_axis_smallest": case(
            "top_k_v2",
            {"X": u(4, 3, 2)},
            {"k": 2, "axis": 0, "largest": False},
            outputs=("Out", "Indices"),
            grad=("X",),
        ),
        "top_k_v2_ties": case(
            "top_k_v2",
            {"X": np.array([[2.0, 5.0, 2.0, 5.0, 1.0], [3.0, 3.0, 3.0, 0.0, 3.0]])},
            {"k": 3},
            outputs=("Out", "Indices"),
        ),
        "top_k_v2_ties_partial_sort": case(
            "top_k_v2", {"X": rng.integers(0, 5, (3, 200)).astype(np.float32)}, {"k": 3}, outputs=("Out", "Indices")
        ),
        "top_k_v2_ties_introsort": case(
            "top_k_v2",
            {"X": rng.integers(0, 6, (4, 40)).astype(np.int64)},
            {"k": 30, "largest": False},
            outputs=("Out", "Indices"),
        ),
        "top_k_v2_nan": case(
            "top_k_v2",
            {"X": np.array([[1.0, np.nan, 3.0, 2.0], [np.nan, 0.0, np.nan, -1.0]])},
            {"k": 3},
            outputs=("Out", "Indices"),
        ),
        "top_k_v2_nan_smallest": case(
            "top_k_v2",
            {"X": np.array([[1.0, np.nan, 3.0, 2.0], [np.nan, 0.0, np.nan, -1.0]])},
            {"k": 3, "largest": False},
            outputs=("Out", "Indices"),
        ),
        "top_k_v2_k_tensor": case(
            "top_k_v2", {"X": u(2, 5), "K": np.array([2], np.int32)}, {"k": 1}, outputs=("Out", "Indices")
        ),
        "masked_select": case("masked_select", {"X": u(3, 4), "Mask": u(3, 4) > 0}, outputs=("Y",), grad=("X",)),
        "masked_select_broadcast": case(
            "masked_select", {"X": u(3, 4), "Mask": np.array([True, False, True, True])}, outputs=("Y",), grad=("X",)
        ),
    }
)


def _set_value(inputs, axes, starts, ends, steps=(), grad=(), **kw):
    attrs = {
        "axes": list(axes),
        "starts": list(starts),
        "ends": list(ends),
        "steps": list(steps),
        "decrease_axes": [],
        "none_axes": [],
        "values": [],
        "shape": [],
        "dtype": 6,
    }
    attrs.update(kw)
    return case("set_value", inputs, attrs, grad=grad)


CASES.update(
    {
        # slice_assignment: x[1:3, ::2] = v, x[:, 1] = 2.5, x[::-1] = v, x[-2:] = v (decrease, none axes)
        "set_value": _set_value(
            {"Input": u(4, 5), "ValueTensor": u(2, 3)}, [0, 1], [1, 0], [3, 5], [1, 2], grad=("Input", "ValueTensor")
        ),
        "set_value_scalar_decrease": _set_value(
            {"Input": u(3, 4)}, [1], [1], [2], [1], decrease_axes=[1], values=[2.5], shape=[1], grad=("Input",)
        ),
        # x[::-1] = v: Paddle's forward sets every row; its Input@GRAD (strided_slice's clamping) zeroes all but
        # row 0 (docs/COMPAT.md): forward only here, the gradient below on a range both read alike
        "set_value_negative_step": _set_value({"Input": u(4, 3), "ValueTensor": u(3)}, [0], [-1], [-5], [-1]),
        "set_value_negative_step_grad": _set_value(
            {"Input": u(4, 3), "ValueTensor": u(3)}, [0], [-1], [0], [-1], grad=("Input", "ValueTensor")
        ),
        "set_value_clamped": _set_value(
            {"Input": u(5, 2), "ValueTensor": u(1, 2)}, [0], [-2], [100], [1], grad=("Input", "ValueTensor")
        ),
        "set_value_decrease_broadcast": _set_value(
            {"Input": u(3, 4, 2), "ValueTensor": u(2)},
            [0, 1],
            [2, 1],
            [3, 3],
            [1, 1],
            decrease_axes=[0],
            grad=("Input", "ValueTensor"),
        ),
        "set_value_int_values": _set_value(
            {"Input": np.arange(12, dtype=np.int64).reshape(3, 4)},
            [1],
            [0],
            [4],
            [3],
            values=[7, -7, 9],
            shape=[3, 1],
            dtype=3,
        ),
        "set_value_tensor_starts": _set_value(
            {
                "Input": u(4, 4),
                "ValueTensor": u(1),
                "StartsTensorList": [np.array([1], np.int64)],
                "EndsTensorList": [np.array([4], np.int64)],
                "StepsTensorList": [np.array([2], np.int64)],
            },
            [0],
            [0],
            [3],
            [1],
            grad=("Input", "ValueTensor"),
        ),
    }
)

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _rnn(mode, T=4, N=3, C=3, H=2, layers=1, bidirec=False, lengths=None, grad=True):
    dirs = 2 if bidirec else 1
    g = GATES[mode]
    weights, biases = [], []
    for layer in range(layers):
        width = C if layer == 0 else H * dirs
        for _ in range(dirs):
            weights += [u(g * H, width, low=-0.6, high=0.6), u(g * H, H, low=-0.6, high=0.6)]
            biases += [u(g * H, low=-0.3, high=0.3), u(g * H, low=-0.3, high=0.3)]
    states = [u(layers * dirs, N, H, low=-0.5, high=0.5) for _ in range(2 if mode == "LSTM" else 1)]
    inputs = {"Input": u(T, N, C), "PreState": states, "WeightList": weights + biases}
    if lengths is not None:
        inputs["SequenceLength"] = np.array(lengths, np.int32)
    attrs = {
        "mode": mode,
        "input_size": C,
        "hidden_size": H,
        "num_layers": layers,
        "is_bidirec": bidirec,
        "dropout_prob": 0.0,
        "is_test": False,
        "seed": 0,
    }
    return case(
        "rnn",
        inputs,
        attrs,
        outputs=("Out", ("State", len(states)), "Reserve", "DropoutState"),
        grad=("Input", "PreState", "WeightList") if grad else (),
    )


CASES.update(
    {
        # rnn: what paddle.nn.LSTM / GRU / SimpleRNN save
        "rnn_lstm": _rnn("LSTM"),
        "rnn_lstm_bidirec_lengths": _rnn("LSTM", layers=2, bidirec=True, lengths=[4, 2, 3]),
        "rnn_gru_lengths": _rnn("GRU", layers=2, lengths=[1, 4, 3]),
        "rnn_gru_bidirec": _rnn("GRU", bidirec=True),
        "rnn_tanh": _rnn("RNN_TANH", lengths=[3, 4, 2]),
        "rnn_relu_bidirec": _rnn("RNN_RELU", bidirec=True, layers=2),
    }
)


def _well(*shape):
    """Well-conditioned square matrices: the identity times 3 plus noise."""
    return u(*shape, low=-0.5, high=0.5) + 3 * np.eye(shape[-1])


CASES.update(
    {
        # linalg_solve
        "mv": case("mv", {"X": u(3, 4), "Vec": u(4)}, grad=("X", "Vec")),
        "determinant": case("determinant", {"Input": _well(2, 3, 3)}, grad=("Input",)),
        "slogdeterminant": case("slogdeterminant", {"Input": _well(2, 3, 3) - 6 * np.eye(3)}, grad=("Input",)),
        "solve": case("solve", {"X": _well(2, 3, 3), "Y": u(2, 3, 2)}, grad=("X", "Y")),
        "solve_vector": case("solve", {"X": _well(3, 3), "Y": u(3)}, grad=("X", "Y")),
        "solve_broadcast": case("solve", {"X": _well(3, 3), "Y": u(2, 3, 2)}, grad=("X", "Y")),
        "triangular_solve": case("triangular_solve", {"X": _well(2, 3, 3), "Y": u(2, 3, 2)}, grad=("X", "Y")),
        "triangular_solve_lower_t_unit": case(
            "triangular_solve",
            {"X": _well(3, 3), "Y": u(3, 4)},
            {"upper": False, "transpose": True, "unitriangular": True},
            grad=("X", "Y"),
        ),
        "triangular_solve_lower_t": case(
            "triangular_solve", {"X": _well(3, 3), "Y": u(3, 4)}, {"upper": False, "transpose": True}, grad=("X", "Y")
        ),
        "triangular_solve_unit": case(
            "triangular_solve", {"X": _well(3, 3), "Y": u(3, 4)}, {"unitriangular": True}, grad=("X", "Y")
        ),
        "cholesky_solve": case("cholesky_solve", {"X": u(3, 2), "Y": np.tril(_well(3, 3))}, grad=("X", "Y")),
        "cholesky_solve_upper": case(
            "cholesky_solve", {"X": u(2, 3, 2), "Y": np.triu(_well(2, 3, 3))}, {"upper": True}, grad=("X", "Y")
        ),
        "multi_dot": case("multi_dot", {"X": [u(2, 3), u(3, 4), u(4, 2)]}, grad=("X",)),
        "multi_dot_vectors": case("multi_dot", {"X": [u(3), u(3, 4), u(4)]}, grad=("X",)),
        "matrix_power": case("matrix_power", {"X": u(2, 3, 3, low=-1, high=1)}, {"n": 3}, grad=("X",)),
        "matrix_power_negative": case("matrix_power", {"X": _well(3, 3)}, {"n": -2}, grad=("X",)),
        "matrix_power_zero": case("matrix_power", {"X": u(3, 3)}, {"n": 0}, grad=("X",)),
    }
)

CASES.update(
    {
        # diagonals
        "diag_v2_vector": case("diag_v2", {"X": u(3)}, {"offset": 1, "padding_value": -1.5}, grad=("X",)),
        "diag_v2_vector_below": case("diag_v2", {"X": u(2)}, {"offset": -2}, grad=("X",)),
        "diag_v2_matrix": case("diag_v2", {"X": u(3, 4)}, {"offset": 1}, grad=("X",)),
        "diag_v2_matrix_below": case("diag_v2", {"X": u(4, 3)}, {"offset": -1}, grad=("X",)),
        "diagonal": case("diagonal", {"Input": u(2, 3, 4)}, {"offset": 1, "axis1": 1, "axis2": 2}, grad=("Input",)),
        "diagonal_axes": case(
            "diagonal", {"Input": u(3, 2, 4)}, {"offset": -1, "axis1": 2, "axis2": 0}, grad=("Input",)
        ),
        "fill_diagonal": case("fill_diagonal", {"X": u(3, 4)}, {"value": 2.5, "offset": 1}, grad=("X",)),
        "fill_diagonal_wrap": case("fill_diagonal", {"X": u(7, 3)}, {"value": -1.0, "wrap": True}, grad=("X",)),
        "fill_diagonal_tall": case("fill_diagonal", {"X": u(7, 3)}, {"value": 4.0, "offset": -1}),
        "fill_diagonal_cube": case("fill_diagonal", {"X": u(3, 3, 3)}, {"value": 9.0}, grad=("X",)),
    }
)

CASES.update(
    {
        # filling
        "fill_any": case("fill_any", {"X": u(2, 3)}, {"value": 1.7}, grad=("X",)),
        "fill_any_int": case("fill_any", {"X": np.arange(4, dtype=np.int64)}, {"value": 3.0}),
        "tril_indices": case("tril_indices", {}, {"rows": 4, "cols": 3, "offset": 0, "dtype": 3}, outputs=("out",)),
        "tril_indices_offset": case(
            "tril_indices", {}, {"rows": 3, "cols": 5, "offset": 2, "dtype": 2}, outputs=("out",)
        ),
        "triu_indices": case("triu_indices", {}, {"row": 4, "col": 4, "offset": -1, "dtype": 3}, outputs=("out",)),
        "triu_indices_offset": case(
            "triu_indices", {}, {"row": 3, "col": 5, "offset": 2, "dtype": 3}, outputs=("out",)
        ),
        "logspace": case(
            "logspace",
            {
                "Start": np.array([0.0], np.float32),
                "Stop": np.array([3.0], np.float32),
                "Num": np.array([7], np.int32),
                "Base": np.array([2.0], np.float32),
            },
            {"dtype": 5},
        ),
        "logspace_float64": case(
            "logspace",
            {
                "Start": np.array([-1.0]),
                "Stop": np.array([2.5]),
                "Num": np.array([6], np.int32),
                "Base": np.array([10.0]),
            },
            {"dtype": 6},
        ),
        # (full_int_array: Paddle 2.6.2's static executor crashes on it, a PIR op: tests/ops/cases_filling.py)
    }
)

_SORTED = np.array([[1.0, 3.0, 3.0, 5.0, 9.0], [-2.0, 0.0, 0.0, 0.5, 4.0]])
CASES.update(
    {
        # channel_rearranging
        "pixel_unshuffle": case("pixel_unshuffle", {"X": u(2, 3, 4, 6)}, {"downscale_factor": 2}, grad=("X",)),
        "pixel_unshuffle_nhwc": case(
            "pixel_unshuffle", {"X": u(1, 6, 3, 2)}, {"downscale_factor": 3, "data_format": "NHWC"}, grad=("X",)
        ),
        "channel_shuffle": case("channel_shuffle", {"X": u(2, 6, 2, 3)}, {"groups": 3}, grad=("X",)),
        "channel_shuffle_nhwc": case(
            "channel_shuffle", {"X": u(1, 2, 3, 4)}, {"groups": 2, "data_format": "NHWC"}, grad=("X",)
        ),
        # bucketing
        "searchsorted": case(
            "searchsorted", {"SortedSequence": _SORTED, "Values": np.array([[3.0, 0.0, 10.0], [0.0, -5.0, 4.0]])}
        ),
        "searchsorted_right_1d": case(
            "searchsorted",
            {"SortedSequence": _SORTED[0], "Values": np.array([[3.0, 5.0], [1.0, 0.0]])},
            {"right": True, "out_int32": True},
        ),
        "histogram": case(
            "histogram", {"X": np.array([[1.0, 2.0, 1.0], [3.5, 4.0, -1.0]])}, {"bins": 4, "min": 0, "max": 4}
        ),
        "histogram_data_range": case("histogram", {"X": u(20)}, {"bins": 5}),
        "histogram_int": case(
            "histogram", {"X": np.array([1, 2, 1, 7, 3, 4], np.int64)}, {"bins": 3, "min": 1, "max": 4}
        ),
        "repeat_interleave": case("repeat_interleave", {"X": u(2, 3)}, {"Repeats": 2, "dim": 1}, grad=("X",)),
        "repeat_interleave_tensor": case(
            "repeat_interleave", {"X": u(3, 2), "RepeatsTensor": np.array([1, 0, 3], np.int64)}, {"dim": 0}, grad=("X",)
        ),
    }
)


def _adamw(with_decay=True, skip=None, dtype=np.float32, **attrs):
    p = u(3, 4).astype(dtype)
    inputs = {
        "Param": p,
        "Grad": u(3, 4).astype(dtype),
        "LearningRate": np.array([0.01], dtype),
        "Moment1": u(3, 4, low=-0.1, high=0.1).astype(dtype),
        "Moment2": u(3, 4, low=0, high=0.2).astype(dtype),
        "Beta1Pow": np.array([0.9**3], dtype),
        "Beta2Pow": np.array([0.999**3], dtype),
    }
    if skip is not None:
        inputs["SkipUpdate"] = np.array([skip])
    return dict(
        case(
            "adamw",
            inputs,
            {"with_decay": with_decay, "coeff": 0.05, "lr_ratio": 0.5, **attrs},
            outputs=("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut"),
        ),
        inplace={
            "ParamOut": "Param",
            "Moment1Out": "Moment1",
            "Moment2Out": "Moment2",
            "Beta1PowOut": "Beta1Pow",
            "Beta2PowOut": "Beta2Pow",
        },
    )


_GRADS = [np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), np.array([8.0, -2.0], np.float32)]
CASES.update(
    {
        # adamw, loss scaling
        "adamw": _adamw(),
        "adamw_float64_no_decay": _adamw(False, dtype=np.float64, beta1=0.8, epsilon=1e-6),
        "adamw_global_beta_pow": _adamw(use_global_beta_pow=True),
        "adamw_skip": _adamw(skip=True),
        "check_finite_and_unscale": case(
            "check_finite_and_unscale",
            {"X": _GRADS, "Scale": np.array([4.0], np.float32)},
            outputs=(("Out", 2), "FoundInfinite"),
        ),
        "check_finite_and_unscale_inf": case(
            "check_finite_and_unscale",
            {"X": [_GRADS[0], np.array([np.inf, 1.0], np.float32)], "Scale": np.array([2.0], np.float32)},
            outputs=(("Out", 2), "FoundInfinite"),
        ),
    }
)


def _scaling(found, good, bad, **attrs):
    inputs = {
        "X": _GRADS,
        "FoundInfinite": np.array([found]),
        "PrevLossScaling": np.array([1024.0], np.float32),
        "InGoodSteps": np.array([good], np.int32),
        "InBadSteps": np.array([bad], np.int32),
    }
    attrs = {"incr_every_n_steps": 3, "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0, "decr_ratio": 0.5, **attrs}
    return dict(
        case("update_loss_scaling", inputs, attrs, outputs=(("Out", 2), "LossScaling", "OutGoodSteps", "OutBadSteps")),
        inplace={
            "Out": "X",
            "LossScaling": "PrevLossScaling",
            "OutGoodSteps": "InGoodSteps",
            "OutBadSteps": "InBadSteps",
        },
    )


CASES.update(
    {
        "update_loss_scaling_grow": _scaling(False, 2, 0),
        "update_loss_scaling_count": _scaling(False, 0, 1),
        "update_loss_scaling_shrink": _scaling(True, 1, 1),
        "update_loss_scaling_bad": _scaling(True, 5, 0),
        "update_loss_scaling_stop": _scaling(True, 1, 1, stop_update=True),
    }
)

_TIE = np.array([[2.5, -3.5, 0.5, 126.6], [-127.5, 130.0, -1.5, 3.0]], np.float32)  # with Scale 127: ties


def _qlinear(op, x, scale, **attrs):
    return case(
        op,
        {"X": x, "Scale": np.asarray(scale, np.float32), "ZeroPoint": np.zeros(np.size(scale), np.float32)},
        {"quant_axis": -1, "bit_length": 8, "is_test": True, **attrs},
        outputs=("Y",),
    )


CASES.update(
    {
        # quantization_linear
        "quantize_linear": _qlinear("quantize_linear", _TIE, [127.0]),
        "quantize_linear_away": _qlinear("quantize_linear", _TIE, [127.0], round_type=1),
        "quantize_linear_channel": _qlinear("quantize_linear", u(2, 3, 2).astype(np.float32), [0.5, 2.0], quant_axis=0),
        "dequantize_linear": _qlinear("dequantize_linear", np.array([[-128.0, 5.0], [127.0, 0.0]], np.float32), [2.0]),
        "dequantize_linear_channel": _qlinear(
            "dequantize_linear",
            np.array([[-12.0, 5.0, 100.0], [1.0, 0.0, -7.0]], np.float32),
            [0.5, 1.0, 4.0],
            quant_axis=1,
        ),
    }
)


def _linear(op, x, **attrs):
    base = {"interp_method": "linear", "align_corners": False, "align_mode": 0, "data_layout": "NCHW"}
    return case(
        op,
        {"X": x} if "OutSize" not in attrs else {"X": x, "OutSize": attrs.pop("OutSize")},
        {**base, **attrs},
        grad=("X",),
    )


CASES.update(
    {
        # linear_resize: F.interpolate(mode='linear') of [N, C, W]
        "linear_interp_v2": _linear("linear_interp_v2", u(2, 3, 5), out_w=8),
        "linear_interp_v2_align_corners": _linear("linear_interp_v2", u(1, 2, 4), out_w=7, align_corners=True),
        "linear_interp_v2_scale": _linear("linear_interp_v2", u(1, 2, 4), scale=[1.5], out_w=0),
        "linear_interp_v2_mode1": _linear("linear_interp_v2", u(1, 2, 6), out_w=4, align_mode=1),
        "linear_interp_v2_nwc": _linear("linear_interp_v2", u(2, 5, 3), out_w=3, data_layout="NHWC"),
        "linear_interp_v2_outsize": _linear("linear_interp_v2", u(1, 2, 3), out_w=2, OutSize=np.array([5], np.int32)),
        "linear_interp": _linear("linear_interp", u(2, 2, 4), out_w=6),
        "linear_interp_tensors": case(
            "linear_interp",
            {
                "X": u(1, 2, 3),
                "OutSize": np.array([4], np.int32),
                "SizeTensor": [np.array([5], np.int32)],
                "Scale": np.array([2.0], np.float32),
            },
            {"interp_method": "linear", "align_corners": True, "out_w": 2},
            grad=("X",),
        ),
        "linear_interp_v2_size_tensor": case(
            "linear_interp_v2",
            {"X": u(1, 2, 3), "SizeTensor": [np.array([5], np.int32)]},
            {"interp_method": "linear", "align_corners": False, "align_mode": 0, "out_w": 2},
            grad=("X",),
        ),
        "linear_interp_v2_scale_tensor": case(
            "linear_interp_v2",
            {"X": u(1, 2, 3), "Scale": np.array([2.0], np.float32)},
            {"interp_method": "linear", "align_corners": False, "align_mode": 1, "out_w": 2},
            grad=("X",),
        ),
    }
)

CASES.update(
    {
        "conj": _unary("conj", u(2, 3)),
        "conj_complex": case("conj", {"X": (u(2, 2) + 1j * u(2, 2)).astype(np.complex128)}),
    }
)

CASES.update(
    {
        # framing
        "frame": case("frame", {"X": u(2, 10)}, {"frame_length": 4, "hop_length": 3, "axis": -1}, grad=("X",)),
        "frame_axis0": case("frame", {"X": u(9, 2)}, {"frame_length": 3, "hop_length": 2, "axis": 0}, grad=("X",)),
        "overlap_add": case("overlap_add", {"X": u(2, 4, 3)}, {"hop_length": 2, "axis": -1}, grad=("X",)),
        "overlap_add_axis0": case("overlap_add", {"X": u(3, 4, 2)}, {"hop_length": 3, "axis": 0}, grad=("X",)),
    }
)

_SEG = np.array([0, 0, 2, 2, 2, 3], np.int64)
CASES.update(
    {
        # segment_pooling (segment 1 empty)
        **{
            f"segment_pool_{k.lower()}": case(
                "segment_pool",
                {"X": u(6, 3), "SegmentIds": _SEG},
                {"pooltype": k},
                outputs=("Out", "SummedIds"),
                grad=("X",),
            )
            for k in ("SUM", "MEAN", "MAX", "MIN")
        },
    }
)

_RUNS = np.array([[1, 1, 2], [2, 2, 3], [2, 2, 3], [1, 1, 1]], np.int64)
CASES.update(
    {
        # unique_runs
        "unique_consecutive": case(
            "unique_consecutive",
            {"X": _RUNS},
            {"return_inverse": True, "return_counts": True, "axis": [], "dtype": 3},
            outputs=("Out", "Index", "Counts"),
        ),
        "unique_consecutive_axis": case(
            "unique_consecutive",
            {"X": _RUNS.astype(np.float32)},
            {"return_inverse": True, "return_counts": True, "axis": [0], "dtype": 2},
            outputs=("Out", "Index", "Counts"),
        ),
        # renormalizing, loss_identity
        "renorm": case("renorm", {"X": u(3, 4, 2)}, {"p": 2.0, "axis": 1, "max_norm": 1.5}, grad=("X",)),
        "renorm_p1": case("renorm", {"X": u(4, 3)}, {"p": 1.0, "axis": 0, "max_norm": 2.0}, grad=("X",)),
        **{
            f"identity_loss_{r}": case("identity_loss", {"X": u(3, 4)}, {"reduction": r}, grad=("X",))
            for r in (0, 1, 2)
        },
    }
)

_SYM = u(2, 3, 3)
_LOWRANK = u(2, 4, 2) @ u(2, 2, 3)
CASES.update(
    {
        # linalg_decomposing
        "matrix_rank": case("matrix_rank", {"X": _LOWRANK}),
        "matrix_rank_tol": case(
            "matrix_rank", {"X": _well(3, 3) * np.array([1.0, 1e-3, 1.0])}, {"tol": 0.01, "use_default_tol": False}
        ),
        "matrix_rank_hermitian": case("matrix_rank", {"X": _SYM + np.swapaxes(_SYM, -1, -2)}, {"hermitian": True}),
        # batched, Paddle's eigvalsh_grad mixes the matrices' eigenvalue gradients (docs/COMPAT.md): one matrix
        "eigvalsh": case("eigvalsh", {"X": _SYM}, {"UPLO": "L"}, outputs=("Eigenvalues", "Eigenvectors")),
        "eigvalsh_grad": dict(
            case(
                "eigvalsh",
                {"X": _SYM[0]},
                {"UPLO": "L"},
                outputs=("Eigenvalues", "Eigenvectors"),
                grad=("X",),
                kink=True,
            ),
            loss=["Eigenvalues"],
        ),
        "eigvalsh_symmetric": case(
            "eigvalsh", {"X": _SYM + np.swapaxes(_SYM, -1, -2)}, {"UPLO": "L"}, outputs=("Eigenvalues", "Eigenvectors")
        ),
        # (the gradient, Paddle's symmetric formula, is no partial derivative of one triangle: Paddle's only)
        "eigh_upper": dict(
            case("eigh", {"X": _SYM}, {"UPLO": "U"}, outputs=("Eigenvalues", "Eigenvectors"), grad=("X",), kink=True),
            loss=["Eigenvalues"],
        ),
        "eigh_vectors": case(
            "eigh", {"X": _SYM}, {"UPLO": "L"}, outputs=("Eigenvalues", "Eigenvectors"), grad=("X",), kink=True
        ),
        "qr": case("qr", {"X": u(2, 4, 3)}, outputs=("Q", "R"), grad=("X",)),
        "qr_complete": case("qr", {"X": u(3, 4)}, {"mode": "complete"}, outputs=("Q", "R")),
        "lu": case("lu", {"X": u(2, 3, 3)}, outputs=("Out", "Pivots", "Infos")),
        "lu_wide": case("lu", {"X": u(3, 4)}, outputs=("Out", "Pivots", "Infos")),
        "lu_unpack": case(
            "lu_unpack",
            {"X": u(2, 3, 3), "Pivots": np.array([[2, 3, 3], [1, 3, 3]], np.int32)},
            outputs=("Pmat", "L", "U"),
        ),
        "lu_unpack_wide": case(
            "lu_unpack", {"X": u(3, 4), "Pivots": np.array([3, 2, 3], np.int32)}, outputs=("Pmat", "L", "U")
        ),
    }
)

CASES.update(
    {
        # sampling: the inference forms (deterministic)
        "rrelu_test": case(
            "rrelu",
            {"X": u(3, 4)},
            {"is_test": True, "lower": 0.1, "upper": 0.3},
            outputs=("Out", "Noise"),
            grad=("X",),
        ),
        "dropout_nd_test": case(
            "dropout_nd",
            {"X": u(3, 4)},
            {"is_test": True, "dropout_prob": 0.3, "axis": [1]},
            outputs=("Out", "Mask"),
            grad=("X",),
        ),
        "dropout_nd_test_upscale": case(
            "dropout_nd",
            {"X": u(3, 4)},
            {"is_test": True, "dropout_prob": 0.3, "axis": [0], "dropout_implementation": "upscale_in_train"},
            outputs=("Out", "Mask"),
            grad=("X",),
        ),
    }
)


def _boxes(n, m):
    lo = rng.uniform(0, 0.6, (n, m, 2))
    return np.concatenate([lo, lo + rng.uniform(0.1, 0.4, (n, m, 2))], axis=-1).astype(np.float32)


_NMS3 = {"score_threshold": 0.2, "nms_top_k": 10, "keep_top_k": 6, "nms_threshold": 0.4, "background_label": 0}
CASES.update(
    {
        # detection_nms: multiclass_nms3 (what PaddleDetection's exported models hold)
        "multiclass_nms3": case(
            "multiclass_nms3",
            {"BBoxes": _boxes(2, 8), "Scores": u(2, 3, 8, low=0, high=1).astype(np.float32)},
            _NMS3,
            outputs=("Out", "Index", "NmsRoisNum"),
        ),
        "multiclass_nms3_rois_num": case(
            "multiclass_nms3",
            {
                "BBoxes": _boxes(7, 3),
                "Scores": u(7, 3, low=0, high=1).astype(np.float32),
                "RoisNum": np.array([4, 3], np.int32),
            },
            {**_NMS3, "background_label": -1},
            outputs=("Out", "Index", "NmsRoisNum"),
        ),
        "multiclass_nms3_none": case(
            "multiclass_nms3",
            {"BBoxes": _boxes(1, 4), "Scores": u(1, 2, 4, low=0, high=0.1).astype(np.float32)},
            _NMS3,
            outputs=("Out", "Index", "NmsRoisNum"),
        ),
    }
)

CASES.update(
    {
        "nms": case(
            "nms",
            {"Boxes": (_boxes(1, 12)[0] * 10).astype(np.float32)},
            {"iou_threshold": 0.3},
            outputs=("KeepBoxesIdxs",),
        ),
        "nms_loose": case(
            "nms",
            {"Boxes": (_boxes(1, 12)[0] * 10).astype(np.float32)},
            {"iou_threshold": 0.7},
            outputs=("KeepBoxesIdxs",),
        ),
    }
)

CASES.update(
    {
        # viterbi
        "viterbi_decode": case(
            "viterbi_decode",
            {
                "Input": u(3, 5, 4).astype(np.float32),
                "Transition": u(4, 4).astype(np.float32),
                "Length": np.array([5, 2, 4], np.int64),
            },
            outputs=("Scores", "Path"),
        ),
        "viterbi_decode_no_tags": case(
            "viterbi_decode",
            {"Input": u(2, 4, 3), "Transition": u(3, 3), "Length": np.array([3, 1], np.int64)},
            {"include_bos_eos_tag": False},
            outputs=("Scores", "Path"),
        ),
    }
)

CASES.update(
    {
        # fused: fused_elemwise_add_activation (the fuse_elewise_add_act pass's op)
        # (the loss over Out alone: the grad op, Fluid's and Paddle's, takes no IntermediateOut@GRAD)
        "fused_elemwise_add_activation": dict(
            case(
                "fused_elemwise_add_activation",
                {"X": u(3, 4), "Y": u(3, 4)},
                {"functor_list": ["relu", "elementwise_add"], "save_intermediate_out": True},
                outputs=("Out", "IntermediateOut"),
                grad=("X", "Y"),
            ),
            loss=["Out"],
        ),
        "fused_elemwise_add_activation_scale": case(
            "fused_elemwise_add_activation",
            {"X": u(3, 4), "Y": u(4)},
            {"functor_list": ["elementwise_add", "scale"], "scale": 0.5, "save_intermediate_out": True},
            outputs=("Out", "IntermediateOut"),
            grad=("X", "Y"),
        )
        | {"loss": ["Out"]},
    }
)

CASES.update(
    {
        # folding: F.fold
        "fold": case(
            "fold",
            {"X": u(2, 3 * 4, 9)},
            {
                "output_sizes": [4, 4],
                "kernel_sizes": [2, 2],
                "strides": [1, 1],
                "paddings": [0, 0, 0, 0],
                "dilations": [1, 1],
            },
            outputs=("Y",),
            grad=("X",),
        ),
        "fold_strided_padded": case(
            "fold",
            {"X": u(1, 2 * 6, 6)},
            {
                "output_sizes": [5, 6],
                "kernel_sizes": [2, 3],
                "strides": [2, 1],
                "paddings": [1, 0, 1, 0],
                "dilations": [1, 2],
            },
            outputs=("Y",),
            grad=("X",),
        ),
    }
)

CASES.update(
    {
        "grad_add": case("grad_add", {"X": u(3, 4), "Y": u(3, 4)}),
        "grad_add_broadcast": case("grad_add", {"X": u(2, 3, 4), "Y": u(4)}),
    }
)

_Z = u(3, 4) + 1j * u(3, 4)
CASES.update(
    {
        # fft: paddle.fft
        **{
            f"fft_c2c_{n}_{'f' if f else 'i'}": case(
                "fft_c2c", {"X": _Z}, {"axes": [0, 1], "normalization": n, "forward": f}
            )
            for n in ("backward", "ortho", "forward")
            for f in (True, False)
        },
        "fft_c2c_axis_complex64": case(
            "fft_c2c", {"X": _Z.astype(np.complex64)}, {"axes": [1], "normalization": "backward", "forward": True}
        ),
        "fft_r2c": case(
            "fft_r2c", {"X": u(3, 6)}, {"axes": [1], "normalization": "backward", "forward": True, "onesided": True}
        ),
        "fft_r2c_full_ortho": case(
            "fft_r2c", {"X": u(4, 3)}, {"axes": [0, 1], "normalization": "ortho", "forward": True, "onesided": False}
        ),
        "fft_r2c_ihfft": case(
            "fft_r2c",
            {"X": u(5).astype(np.float32)},
            {"axes": [0], "normalization": "backward", "forward": False, "onesided": True},
        ),
        "fft_c2r": case("fft_c2r", {"X": _Z}, {"axes": [1], "normalization": "backward", "forward": False}),
        "fft_c2r_size": case(
            "fft_c2r", {"X": _Z}, {"axes": [0, 1], "normalization": "forward", "forward": False, "last_dim_size": 7}
        ),
        "fft_c2r_hfft": case(
            "fft_c2r", {"X": _Z[0]}, {"axes": [0], "normalization": "ortho", "forward": True, "last_dim_size": 6}
        ),
    }
)

CASES.update(
    {
        # index_assignment: paddle.index_put
        "index_put": case(
            "index_put",
            {"x": u(4, 3), "indices": [np.array([0, 2], np.int64), np.array([1, 0], np.int64)], "value": u(2)},
            outputs=("out",),
            grad=("x", "value"),
        ),
        "index_put_rows_broadcast": case(
            "index_put",
            {"x": u(4, 3), "indices": [np.array([3, 1], np.int64)], "value": u(3)},
            outputs=("out",),
            grad=("x", "value"),
        ),
        "index_put_accumulate": case(
            "index_put",
            {"x": u(4, 3), "indices": [np.array([0, 0, 2], np.int64), np.array([1, 1, 2], np.int64)], "value": u(3)},
            {"accumulate": True},
            outputs=("out",),
            grad=("x", "value"),
        ),
        "index_put_mask": case(
            "index_put", {"x": u(3, 4), "indices": [u(3, 4) > 0], "value": np.array([9.0])}, outputs=("out",)
        ),
    }
)

CASES.update(
    {
        "stft": case(
            "stft",
            {"X": u(2, 20), "Window": np.hanning(8)},
            {"n_fft": 8, "hop_length": 3, "normalized": False, "onesided": True},
        ),
        "stft_normalized": case(
            "stft",
            {"X": u(1, 16).astype(np.float32), "Window": np.hanning(6).astype(np.float32)},
            {"n_fft": 6, "hop_length": 2, "normalized": True, "onesided": True},
        ),
    }
)

CASES.update(
    {
        # numerics: check_numerics
        "check_numerics": case(
            "check_numerics",
            {"tensor": np.array([[1.0, 0.0, -2.5], [0.0, 4.0, 0.5]], np.float32)},
            {"op_type": "scale", "var_name": "x"},
            outputs=("stats", "values"),
        ),
        "check_numerics_level3": case(
            "check_numerics",
            {"tensor": np.array([1.0, np.nan, np.inf, 0.0, -3.0])},
            {"check_nan_inf_level": 3},
            outputs=("stats", "values"),
        ),
    }
)

CASES.update(
    {
        "eig": case("eig", {"X": u(2, 3, 3)}, outputs=("Eigenvalues", "Eigenvectors")),
        "eigvals": case("eigvals", {"X": u(4, 4).astype(np.float32)}),
    }
)


def _anchors(h, w, a, size=16.0):
    cy, cx = np.meshgrid(np.arange(h) * 8.0 + 4, np.arange(w) * 8.0 + 4, indexing="ij")
    half = size * (1 + np.arange(a)) / 2
    boxes = np.stack([cx[..., None] - half, cy[..., None] - half, cx[..., None] + half, cy[..., None] + half], -1)
    return boxes.astype(np.float32)


CASES.update(
    {
        # detection_proposals: generate_proposals_v2 (PaddleDetection's RPN)
        "generate_proposals_v2": case(
            "generate_proposals_v2",
            {
                "Scores": u(2, 2, 4, 4, low=0, high=1).astype(np.float32),
                "BboxDeltas": u(2, 8, 4, 4, low=-0.3, high=0.3).astype(np.float32),
                "ImShape": np.array([[32.0, 32.0], [28.0, 30.0]], np.float32),
                "Anchors": _anchors(4, 4, 2),
                "Variances": np.ones((4, 4, 2, 4), np.float32),
            },
            {"pre_nms_topN": 20, "post_nms_topN": 8, "nms_thresh": 0.6, "min_size": 2.0, "eta": 1.0},
            outputs=("RpnRois", "RpnRoiProbs", "RpnRoisNum"),
        ),
    }
)


def _merged_adam():
    ps, gs, m1, m2 = (
        [u(3, 2).astype(np.float32), u(4).astype(np.float32)],
        [u(3, 2).astype(np.float32), u(4).astype(np.float32)],
        [],
        [],
    )
    for p in ps:
        m1.append(u(*p.shape, low=-0.1, high=0.1).astype(np.float32))
        m2.append(u(*p.shape, low=0, high=0.2).astype(np.float32))
    pows = [np.array([0.9**2], np.float32), np.array([0.9**5], np.float32)]
    inputs = {
        "Param": ps,
        "Grad": gs,
        "LearningRate": [np.array([0.01], np.float32), np.array([0.02], np.float32)],
        "Moment1": m1,
        "Moment2": m2,
        "Beta1Pow": pows,
        "Beta2Pow": [p * 1.1 for p in pows],
    }
    return dict(
        case(
            "merged_adam",
            inputs,
            {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
            outputs=(("ParamOut", 2), ("Moment1Out", 2), ("Moment2Out", 2), ("Beta1PowOut", 2), ("Beta2PowOut", 2)),
        ),
        inplace={
            "ParamOut": "Param",
            "Moment1Out": "Moment1",
            "Moment2Out": "Moment2",
            "Beta1PowOut": "Beta1Pow",
            "Beta2PowOut": "Beta2Pow",
        },
    )


def _pow2(step):
    return dict(
        case(
            "pow2_decay_with_linear_warmup",
            {"LearningRate": np.array([0.5], np.float32), "Step": np.array([step], np.int64)},
            {"warmup_steps": 4, "total_steps": 10, "base_lr": 0.1, "end_lr": 0.001},
            outputs=("LearningRateOut", "StepOut"),
        ),
        inplace={"LearningRateOut": "LearningRate", "StepOut": "Step"},
    )


CASES.update({"merged_adam": _merged_adam(), **{f"pow2_decay_step{s}": _pow2(s) for s in (0, 3, 6, 12)}})

CASES.update(
    {
        # ring_collectives: c_embedding (a vocabulary slice from start_index; ids outside give zeros)
        "c_embedding": case(
            "c_embedding",
            {"W": u(5, 3), "Ids": np.array([[4, 7, 5], [9, 8, 3]], np.int64)},
            {"start_index": 4, "vocab_size": 10},
            grad=("W",),
        ),
    }
)

CASES.update(
    {
        # masked_softmax: paddle.incubate.softmax_mask_fuse
        "fused_softmax_mask": case(
            "fused_softmax_mask", {"X": u(2, 3, 4, 4), "Mask": np.where(u(2, 1, 4, 4) > 0, 0.0, -1e4)}, grad=("X",)
        ),
    }
)


def _unique(x, axis=(), dtype=3):
    """Paddle 2.x's unique (is_sorted, as paddle.unique appends it): every output asked for."""
    attrs = {"dtype": dtype, "return_index": True, "return_inverse": True, "return_counts": True}
    return case("unique", {"X": x}, dict(attrs, axis=list(axis), is_sorted=True), ("Out", "Indices", "Index", "Counts"))


_ROWS = np.array([[2.0, -1.0, 3.0], [0.5, 4.0, 4.0], [2.0, -1.0, 3.0], [-3.0, 0.0, 1.0], [0.5, 4.0, 4.0]])
CASES.update(
    {
        # indexing: Paddle 2.x's unique, its Indices, Index and Counts (issue 96)
        "unique_sorted": _unique(np.array([3.5, -1.0, 2.0, 3.5, 0.0, -1.0, 7.25, 3.5])),
        "unique_sorted_2d_int32": _unique(np.array([[4, 1, 4, -2], [0, 1, 9, 4], [-2, -2, 0, 5]], np.int64), dtype=2),
        "unique_axis0": _unique(_ROWS, axis=[0]),
        "unique_axis1": _unique(np.ascontiguousarray(_ROWS.T), axis=[1]),
        "unique_axis_last_3d": _unique(
            np.array([[[1, 0, 1, 2], [3, 3, 3, 1]], [[0, 5, 0, 0], [2, 1, 2, 2]]], np.int32), axis=[-1]
        ),
    }
)


def _p_norm(p, x=None, **attrs):
    base = {"porder": p, "axis": -1, "epsilon": 1e-12, "keepdim": False, "asvector": False}
    return case("p_norm", {"X": u(3, 4, 5) if x is None else x}, dict(base, **attrs), grad=("X",))


_SPARSE = np.where(u(3, 4, 5) > 0.6, 0.0, u(3, 4, 5))
CASES.update(
    {
        # reduction: p_norm of porder 0, inf, -inf (and negative), Paddle 2.x's (issue 96)
        "p_norm_zero": _p_norm(0.0, _SPARSE, axis=1),
        "p_norm_zero_vector": _p_norm(0.0, _SPARSE, asvector=True, keepdim=True),
        "p_norm_inf": _p_norm(float("inf"), axis=1),
        "p_norm_inf_keepdim": _p_norm(float("inf"), axis=-1, keepdim=True),
        "p_norm_inf_vector": _p_norm(float("inf"), asvector=True),
        "p_norm_neg_inf": _p_norm(float("-inf"), axis=0),
        "p_norm_neg_inf_vector": _p_norm(float("-inf"), asvector=True, keepdim=True),
        "p_norm_negative": _p_norm(-1.5, axis=2),
    }
)


# VarType numbers of cast's in_dtype / out_dtype
_VT = {"bool": 0, "int16": 1, "int32": 2, "int64": 3, "float16": 4, "float32": 5, "float64": 6, "uint8": 20, "int8": 21}
_WIDE = np.array([-300.7, -2.5, 0.0, 1.9, 200.2, 70000.0, 65504.0, 65519.0, 1e-5, -3e-7, 6.1e-5, 1e-8, 0.1, 2049.9])


def _cast(x, out):
    return case("cast", {"X": x}, {"in_dtype": _VT[str(x.dtype)], "out_dtype": _VT[out]})


CASES.update(
    {
        # manipulation: cast to and from int16, uint8, int8, bool, float16 (issue 96); float16 as Paddle's CPU
        # makes it (the mantissa truncated)
        "cast_float_int16": _cast(_WIDE.astype(np.float32), "int16"),
        "cast_int16_float": _cast(np.array([-32768, -300, 0, 7, 32767], np.int16), "float32"),
        "cast_int16_int64": _cast(np.array([[-32768, 5], [0, 32767]], np.int16), "int64"),
        "cast_int16_bool": _cast(np.array([-2, 0, 1, 0, 300], np.int16), "bool"),
        "cast_bool_int16": _cast(np.array([True, False, True]), "int16"),
        "cast_int64_int16": _cast(np.array([70000, -70000, 12, -1], np.int64), "int16"),
        "cast_float_uint8": _cast(_WIDE.astype(np.float32), "uint8"),
        "cast_float_int8": _cast(_WIDE.astype(np.float32), "int8"),
        "cast_uint8_int16": _cast(np.array([0, 200, 255], np.uint8), "int16"),
        "cast_float_float16": _cast(_WIDE.astype(np.float32), "float16"),
        "cast_double_float16": _cast(np.array([0.1, 1 / 3, 2049.999, -1e-6, 65519.9]), "float16"),
        "cast_int32_float16": _cast(np.array([2049, 4097, -65535, 7], np.int32), "float16"),
        "cast_float16_int16": _cast(np.array([-300.5, 2.75, 0.0, 1000.0], np.float16), "int16"),
    }
)


def _grid_sampler(mode, padding, corners, grid=None, x=None):
    grid = u(2, 3, 4, 2, low=-1.6, high=1.6) if grid is None else grid
    attrs = {"mode": mode, "padding_mode": padding, "align_corners": corners, "use_cudnn": False}
    return case(
        "grid_sampler",
        {"X": u(2, 3, 4, 5) if x is None else x, "Grid": grid},
        attrs,
        outputs=("Output",),
        grad=("X", "Grid") if mode == "bilinear" else ("X",),
    )


# nearest's points where round() is a tie (x.5 pixels), both signs, and points outside X
_TIES_GRID = np.array(
    [[[[-1.0, -1.0], [-0.75, 0.0], [0.25, -0.6], [1.0, 1.0]], [[-1.3, 0.5], [1.2, -1.1], [0.0, 0.0], [0.6, 0.2]]]]
)
CASES.update(
    {
        # image: grid_sampler's nearest mode and border / reflection padding (issue 96)
        f"grid_sampler_{mode}_{pad}_{'corners' if corners else 'edges'}": _grid_sampler(mode, pad, corners)
        for mode in ("nearest", "bilinear")
        for pad in ("zeros", "border", "reflection")
        for corners in (True, False)
    }
)
CASES.update(
    {
        f"grid_sampler_nearest_ties_{pad}": _grid_sampler("nearest", pad, False, _TIES_GRID, u(1, 2, 4, 4))
        for pad in ("zeros", "border", "reflection")
    }
)


def _deformable(v2, groups=1, dg=1, stride=1, pad=1, dilation=1):
    n, c, h, w, k, co = 1, 4, 5, 5, 3, 4
    ho = (h + 2 * pad - dilation * (k - 1) - 1) // stride + 1
    inputs = {"Input": u(n, c, h, w), "Offset": u(n, 2 * dg * k * k, ho, ho, low=-1.5, high=1.5)}
    inputs["Filter"] = u(co, c // groups, k, k)
    if v2:
        inputs["Mask"] = u(n, dg * k * k, ho, ho, low=0, high=1)
    attrs = {"strides": [stride] * 2, "paddings": [pad] * 2, "dilations": [dilation] * 2, "groups": groups}
    attrs.update(deformable_groups=dg, im2col_step=1)
    op = "deformable_conv" if v2 else "deformable_conv_v1"
    return case(op, inputs, attrs, outputs=("Output",), grad=tuple(inputs))


CASES.update(
    {
        # convolution_deformable: paddle.vision.ops.deform_conv2d's ops, v2 (Mask) and v1 (issue 96)
        "deformable_conv_v2": _deformable(True),
        "deformable_conv_v2_groups": _deformable(True, groups=2, dg=2, stride=2, dilation=1),
        "deformable_conv_v1": _deformable(False),
        "deformable_conv_v1_dilated": _deformable(False, dg=2, pad=2, dilation=2),
    }
)


# graph_message_passing: paddle.geometric's send_u_recv, send_ue_recv and send_uv (row 4 of X receives no edge;
# no destination gets one source twice, so MAX / MIN have no ties)
_SRC = np.array([0, 1, 2, 0, 4, 3], np.int64)
_DST = np.array([1, 2, 1, 0, 1, 3], np.int64)


def _recv(x, attrs, src=_SRC, dst=_DST, out_size=None, grad=True):
    inputs = {"X": x, "Src_index": src, "Dst_index": dst}
    if out_size is not None:
        inputs["Out_size"] = np.array([out_size], np.int32)
    return case("graph_send_recv", inputs, attrs, outputs=("Out", "Dst_count"), grad=("X",) if grad else ())


def _ue_recv(x, y, attrs, src=_SRC, dst=_DST, grad=True):
    inputs = {"X": x, "Y": y, "Src_index": src, "Dst_index": dst}
    return case("graph_send_ue_recv", inputs, attrs, outputs=("Out", "Dst_count"), grad=("X", "Y") if grad else ())


def _uv(x, y, op, src=_SRC, dst=_DST, grad=True):
    inputs = {"x": x, "y": y, "src_index": src, "dst_index": dst}
    return case("graph_send_uv", inputs, {"message_op": op}, outputs=("out",), grad=("x", "y") if grad else ())


_INTS = np.array([[-7, 3], [5, -2], [1, 1], [4, -9], [0, 6]])
CASES.update({f"graph_send_recv_{k.lower()}": _recv(u(5, 3), {"reduce_op": k}) for k in ("SUM", "MEAN", "MAX", "MIN")})
CASES.update(
    {
        "graph_send_recv_max_3d": _recv(u(5, 2, 3).astype(np.float32), {"reduce_op": "MAX"}, grad=False),
        "graph_send_recv_mean_out_size": _recv(u(5, 3), {"reduce_op": "MEAN", "out_size": [7]}),
        "graph_send_recv_sum_out_size_tensor": _recv(u(5, 2), {"reduce_op": "SUM"}, out_size=6),
        "graph_send_recv_min_out_size_below_rows": _recv(u(5, 2), {"reduce_op": "MIN", "out_size": [4]}),
        "graph_send_recv_mean_int32": _recv(
            _INTS.astype(np.int32), {"reduce_op": "MEAN"}, _SRC.astype(np.int32), _DST.astype(np.int32), grad=False
        ),
        "graph_send_recv_max_int64": _recv(_INTS, {"reduce_op": "MAX"}, grad=False),
        "graph_send_recv_sum_column_index": _recv(
            u(5, 3), {"reduce_op": "SUM"}, _SRC.reshape(-1, 1), _DST.reshape(-1, 1)
        ),
        "graph_send_recv_mean_no_edges": _recv(
            u(5, 3), {"reduce_op": "MEAN"}, np.zeros(0, np.int64), np.zeros(0, np.int64), grad=False
        ),
    }
)
CASES.update(
    {
        f"graph_send_ue_recv_{m.lower()}_{k.lower()}": _ue_recv(u(5, 3), u(6, 3), {"message_op": m, "reduce_op": k})
        for m in ("ADD", "MUL")
        for k in ("SUM", "MEAN", "MAX", "MIN")
    }
)
CASES.update(
    {
        "graph_send_ue_recv_mul_mean_broadcast": _ue_recv(
            u(5, 3, 1), u(6, 1, 2), {"message_op": "MUL", "reduce_op": "MEAN"}
        ),
        "graph_send_ue_recv_add_max_edge_scalar": _ue_recv(
            u(5, 3).astype(np.float32),
            u(6, 1).astype(np.float32),
            {"message_op": "ADD", "reduce_op": "MAX"},
            grad=False,
        ),
        "graph_send_ue_recv_add_sum_fewer_dims": _ue_recv(
            u(5, 2, 3), u(6, 3), {"message_op": "ADD", "reduce_op": "SUM", "out_size": [6]}
        ),
        "graph_send_ue_recv_mul_mean_int32": _ue_recv(
            _INTS.astype(np.int32),
            np.array([[2], [-1], [3], [1], [-2], [5]], np.int32),
            {"message_op": "MUL", "reduce_op": "MEAN"},
            _SRC.astype(np.int32),
            _DST.astype(np.int32),
            grad=False,
        ),
    }
)
CASES.update(
    {
        "graph_send_uv_add": _uv(u(5, 3), u(5, 3), "ADD"),
        "graph_send_uv_mul": _uv(u(5, 3), u(5, 3), "MUL"),
        "graph_send_uv_mul_broadcast": _uv(u(5, 3, 1), u(5, 1, 4), "MUL"),
        "graph_send_uv_add_float32_column": _uv(
            u(5, 4).astype(np.float32), u(5, 1).astype(np.float32), "ADD", grad=False
        ),
        "graph_send_uv_mul_int64": _uv(_INTS, _INTS[::-1].copy(), "MUL", grad=False),
    }
)


def _reindex(x, neighbors, count, dtype=np.int64, buffers=False):
    inputs = {"X": np.array(x, dtype), "Neighbors": np.array(neighbors, dtype), "Count": np.array(count, np.int32)}
    if buffers:  # (a GPU kernel's hash table; Paddle's CPU kernel reads neither)
        inputs.update(HashTable_Value=np.full(16, -1, np.int32), HashTable_Index=np.full(16, -1, np.int32))
    return case("graph_reindex", inputs, outputs=("Reindex_Src", "Reindex_Dst", "Out_Nodes"))


CASES.update(
    {
        # graph_reindexing: paddle.geometric.reindex_graph / reindex_heter_graph (their docstrings' graphs)
        "graph_reindex": _reindex([0, 1, 2], [8, 9, 0, 4, 7, 6, 7], [2, 3, 2]),
        "graph_reindex_heter": _reindex([0, 1, 2], [8, 9, 0, 4, 7, 6, 7, 0, 2, 3, 5, 1], [2, 3, 2, 1, 3, 1]),
        "graph_reindex_int32_buffers": _reindex([5, 3], [3, 7, 7, 5, 1], [3, 2], np.int32, buffers=True),
        "graph_reindex_x_twice": _reindex([4, 2, 4], [2, 9, 4, 9], [1, 2, 1]),
        "graph_reindex_no_neighbors": _reindex([3, 1], [], [0, 0]),
        "graph_reindex_column": case(
            "graph_reindex",
            {
                "X": np.array([[10], [20]]),
                "Neighbors": np.array([[20], [30], [10]]),
                "Count": np.array([[1], [2]], np.int32),
            },
            outputs=("Reindex_Src", "Reindex_Dst", "Out_Nodes"),
        ),
    }
)


# graph_sampling: paddle.geometric.sample_neighbors where no draw is made (sample_size at least each node's
# in-degree, or 0): Paddle's values exactly; its draws (std::random_device) are checked by their properties in
# tests/ops/cases_graph_sampling.py. Node 7 has no in-neighbour; Paddle 2.6.2's CPU kernel fails on -1.
_CSC = {
    "Row": np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]),
    "Col_Ptr": np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]),
}


def _sample(nodes, size, eids=False, dtype=np.int64, buffer=False):
    inputs = {s: v.astype(dtype) for s, v in _CSC.items()}
    inputs["X"] = np.array(nodes, dtype)
    outputs = ("Out", "Out_Count", "Out_Eids")  # (Out_Eids unwritten without return_eids)
    if eids:
        inputs["Eids"] = np.arange(13, dtype=dtype) * 10
    if buffer:  # (a GPU kernel's; Paddle's CPU kernel reads it not)
        inputs["Perm_Buffer"] = np.arange(13, dtype=dtype)
    attrs = {"sample_size": size, "return_eids": eids, "flag_perm_buffer": buffer}
    return case("graph_sample_neighbors", inputs, attrs, outputs=outputs)


CASES.update(
    {
        "graph_sample_neighbors_all": _sample([0, 7, 2, 6, 1], 5),
        "graph_sample_neighbors_eids": _sample([5, 8, 5, 0], 2, eids=True),
        "graph_sample_neighbors_int32_buffer": _sample([9, 3, 6], 3, eids=True, dtype=np.int32, buffer=True),
        "graph_sample_neighbors_zero": _sample([0, 1, 7], 0, eids=True),
    }
)


def _prim(op, inputs, attrs, outputs=("Y",)):
    """A structural primitive op (primitive_shaping): Paddle runs it lowered (prim2orig), its meaning."""
    return dict(case(op, inputs, attrs, outputs=outputs), lower=True)


_P = u(3, 4).astype(np.float32)
CASES.update(
    {
        # primitive_shaping: Paddle 2.6's structural *_p ops (Paddle's values through its prim2orig lowering)
        "reshape_p": _prim("reshape_p", {"X": _P}, {"shape": [2, 6]}),
        "broadcast_p": _prim("broadcast_p", {"X": u(3, 1)}, {"shape": [2, 3, 4]}),
        "transpose_p": _prim("transpose_p", {"X": u(2, 3, 4)}, {"axis": [2, 0, 1]}),
        "split_p_equal": _prim("split_p", {"X": u(4, 6)}, {"axis": 1, "num_or_sections": [3]}, (("YS", 3),)),
        "split_p_sections": _prim("split_p", {"X": _P}, {"axis": 1, "num_or_sections": [1, 3]}, (("YS", 2),)),
        "concat_p": _prim("concat_p", {"XS": [u(2, 3), u(2, 1), u(2, 2)]}, {"axis": 1}),
        "reduce_sum_p": _prim("reduce_sum_p", {"X": u(2, 3, 4)}, {"axis": [0, 2], "keepdim": False}),
        "reduce_sum_p_keepdim": _prim("reduce_sum_p", {"X": _P}, {"axis": [1], "keepdim": True}),
        "matmul_p": _prim("matmul_p", {"X": u(3, 4), "Y": u(4, 2)}, {}, ("Z",)),
        "matmul_p_batched": _prim("matmul_p", {"X": u(2, 3, 4), "Y": u(2, 4, 5)}, {}, ("Z",)),
        "slice_select_p": _prim(
            "slice_select_p", {"X": u(4, 6)}, {"axis": [0, 1], "starts": [1, 0], "ends": [4, 6], "strides": [2, 4]}
        ),
        "slice_assign_p": _prim(
            "slice_assign_p",
            {"X": u(4, 6), "Y": u(2, 2)},
            {"axis": [0, 1], "starts": [1, 0], "ends": [4, 6], "strides": [2, 4]},
            ("Z",),
        ),
        "gather_p": _prim("gather_p", {"X": u(3, 4), "IndexTensor": np.array([3, 0, 3], np.int32)}, {"axis": 1}),
        "scatter_add_p": _prim(
            "scatter_add_p",
            {"X": u(4, 3), "Y": u(3, 3), "IndexTensor": np.array([2, 0, 2], np.int32)},
            {"axis": 0},
            ("Z",),
        ),
        "fill_constant_p": _prim("fill_constant_p", {}, {"shape": [2, 3], "value": 1.1, "dtype": 6}),
        "fill_constant_p_int": _prim("fill_constant_p", {}, {"shape": [4], "value": -3.0, "dtype": 3}),
        "select_p": _prim("select_p", {"Condition": u(3, 4) > 0, "X": u(3, 4), "Y": u(3, 4)}, {}, ("Z",)),
        "cast_p": _prim("cast_p", {"X": np.array([[-1.7, 0.2], [2.5, 3.9]])}, {"dtype": 3}),
        "cast_p_float32": _prim("cast_p", {"X": _P.astype(np.float64)}, {"dtype": 5}),
    }
)


def _khop(nodes, sizes, eids=False, dtype=np.int64):
    """graph_khop_sampler (paddle.incubate.graph_khop_sampler) where no draw is made (each size at least every
    in-degree): Paddle's values; X holds node 2 twice in a row (the kernel drops adjacent repeats)."""
    inputs = {s: v.astype(dtype) for s, v in _CSC.items()}
    inputs["X"] = np.array(nodes, dtype)
    if eids:
        inputs["Eids"] = np.arange(13, dtype=dtype) * 10
    attrs = {"sample_sizes": sizes, "return_eids": eids}
    return case(
        "graph_khop_sampler", inputs, attrs, outputs=("Out_Src", "Out_Dst", "Sample_Index", "Reindex_X", "Out_Eids")
    )


CASES.update(
    {
        "graph_khop_sampler_one_layer": _khop([0, 2, 2, 5], [5]),
        "graph_khop_sampler_three_layers_eids": _khop([0, 2, 2, 5], [5, 3, 2], eids=True),
        "graph_khop_sampler_int32": _khop([8, 6, 8], [2, 2], eids=True, dtype=np.int32),
    }
)


# random: uniform_random_p with a seed of its own (Paddle's values through its prim2orig lowering, paddle.uniform:
# uniform_random's engine, which pe reproduces in a program that follows Paddle 2.6: tests/paddle/test_paddle_random.py)
CASES.update(
    {
        f"uniform_random_p_{t}": dict(
            case("uniform_random_p", {}, {"shape": [3, 4], "min": -2.0, "max": 3.0, "seed": 11, "dtype": d}, ("Out",)),
            lower=True,
        )
        for t, d in (("float32", 5), ("float64", 6))
    }
)
