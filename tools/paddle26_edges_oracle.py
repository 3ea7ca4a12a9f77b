"""Paddle 2.6.2 as the oracle of tensor functions at their edges (ties, zeros, NaN, the ends of a domain), where
pe's compositions of other ops gave other values or gradients than the op Paddle builds, before 2026-11-29:
atan2 at (0, -0), fmax/fmin at ties and NaN, heaviside of NaN, lerp's Weight (no gradient), trunc and frac of
NaN, asinh at 0, atanh, logit at 0 and 1, celu at 0, rrelu of 0 and NaN; pe now builds Paddle's ops. And where
pe's kernels or functions differed: leaky_relu's and abs's gradients at 0 (Paddle 2.6's), leaky_relu's gradient
of alpha <= 0 (of X), log_softmax of masked logits (clipped at -64, as Paddle's CPU kernel), paddle.linalg.norm / normalize / dist at a zero norm (p_norm,
frobenius_norm: gradient 0), clip's gradient of an inf dOut, tan / log2 / log10 (their ops). Equal values: the
indices Paddle's CPU top_k_v2, kthvalue, argsort and top_k op leave (libstdc++'s partial_sort / nth_element /
sort order) and the gradients of paddle.median and paddle.sort, which follow them. pow's gradient to Y where X
<= 0 (log X: NaN, -inf), log_sigmoid at -inf (NaN) and 50 (-0.0), logsumexp of lines holding +inf or only -inf
(NaN), logcumsumexp's running value at a second +inf (NaN) and a NaN value (a copy of the running value plus
log 2: std::max / std::min), label_smooth's label (stop_gradient: no gradient flows back through it); mean and
l1_norm appended as ops (0-D); allclose at infinities and NaN, and given Rtol / Atol tensors; paddle.diag and paddle.diagonal as their ops;
paddle.crop without a shape (x's); paddle.unique_consecutive as its op (NaN runs apart); equal,
not_equal and equal_all of floats (within 1e-8, infinities, NaN); matrix_rank's tolerances (a TolTensor).
Records each case's values, dtype, shape and the float inputs' gradients into
tests/data/paddle_oracle/edges26.json, with tools/paddle_function_oracle.py's runner;
tests/paddle/test_paddle_function_oracle.py replays them on pe.

    /work/p26/bin/python tools/paddle26_edges_oracle.py    # paddlepaddle==2.6.2"""

import importlib.util
import os

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "paddle_function_oracle", os.path.join(_HERE, "paddle_function_oracle.py")
)
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
case = base._case

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "edges26.json")

NAN = float("nan")
X = np.array([[-2.0, -1.0, 0.0, 0.0, 1.0, 2.0, 6.0, NAN], [3.0, 3.0, 0.0, -1.0, 1.0, 1.0, -0.5, 0.5]], "float32")
Y = np.array([[-2.0, 0.0, 0.0, 1.0, 1.0, 3.0, 6.0, 5.0], [3.0, 2.0, -0.0, -1.0, 2.0, NAN, 7.0, -6.0]], "float32")
P = np.array([[0.0, 0.1, 0.5, 1.0, 0.9, 1e-7, 0.3, 0.7], [1.0, 0.0, 0.2, 0.4, 0.6, 0.8, 0.99, 0.01]], "float32")
ACOSH = np.array([1.0, 1.5, 2.0, 10.0, NAN, 1.25], "float32")
X0 = np.nan_to_num(X, nan=8.0)  # (X without its NaN: 8, an exact power of two for log2)
ZERO_ROW = np.array([[0.0], [1.0]], "float32")
MASKED = np.array([[-np.inf, 0.0, 1.0, -1e9, 2.0], [3.0, -np.inf, -np.inf, 0.5, -70.0]], "float32")


def _tied(name, rows, n, nan=False):
    """``rows`` rows of ``n`` values drawn from 0..3 (and NaN): many equal values in every row."""
    x = np.random.default_rng(sum(map(ord, name)) * 7919 + n).integers(0, 4, (rows, n))
    x = x.astype("float32")
    if nan:
        x[x == 3] = NAN
    return x


def _top_k_op(P, x, k):
    """The top_k op (Fluid's ``fluid.layers.topk``: std::partial_sort comparing ``l > r``, the values without a
    gradient): in Paddle 2.6 appended as Fluid 1.8's layer did, in pe by pe's Fluid layer."""
    if not hasattr(P, "base"):
        from pe_cli import fluid

        return list(fluid.layers.topk(x, k))
    helper = P.base.layer_helper.LayerHelper("top_k")
    values, indices = (
        helper.create_variable_for_type_inference(x.dtype),
        helper.create_variable_for_type_inference("int64"),
    )
    helper.append_op(type="top_k", inputs={"X": [x]}, outputs={"Out": [values], "Indices": [indices]}, attrs={"k": k})
    values.stop_gradient = indices.stop_gradient = True
    return [values, indices]


def _tie_cases():
    """Equal values: the indices Paddle's CPU kernels (std::partial_sort, nth_element, sort) leave, and the
    gradients that follow them (topk, kthvalue, median)."""
    out = {}
    for n in (6, 20, 100, 300):
        for k in sorted({1, 2, 3, n // 2 + 1, n}):
            for largest in (True, False):
                name = f"topk_ties_{n}_{k}_{'largest' if largest else 'smallest'}"
                out[name] = case(
                    lambda P, x, k=k, lg=largest: list(P.topk(x, k, axis=1, largest=lg)), x=_tied(name, 40, n)
                )
            name = f"kthvalue_ties_{n}_{k}"
            out[name] = case(lambda P, x, k=k: list(P.kthvalue(x, k, axis=1)), x=_tied(name, 40, n))
        for k in (1, 2, 3, 5):
            name = f"top_k_op_ties_{n}_{k}"
            out[name] = case(lambda P, x, k=k: _top_k_op(P, x, k), grad=False, x=_tied(name, 40, n, nan=k == 3))
            name = f"top_k_op_ints_{n}_{k}"
            out[name] = case(lambda P, x, k=k: _top_k_op(P, x, k), grad=False, x=_tied(name, 40, n).astype("float64"))
        name = f"topk_unsorted_{n}"
        out[name] = case(lambda P, x, k=n // 2: list(P.topk(x, k, axis=1, sorted=False)), x=_tied(name, 40, n))
        name = f"topk_nan_{n}"
        out[name] = case(
            lambda P, x: list(P.topk(x, 3, axis=1)) + list(P.topk(x, 3, axis=1, largest=False)),
            x=_tied(name, 40, n, True),
        )
        name = f"median_ties_{n}"
        out[name] = case(
            lambda P, x: [P.median(x, axis=1), P.median(x[:, 1:], axis=1, keepdim=True)], x=_tied(name, 40, n)
        )
    for n in (10, 16, 17, 40, 300):
        for desc in (False, True):
            name = f"argsort_ties_{n}_{'descending' if desc else 'ascending'}"
            out[name] = case(
                lambda P, x, d=desc: [P.argsort(x, axis=1, descending=d), P.sort(x, axis=1, descending=d)],
                x=_tied(name, 30, n, nan=n == 40),
            )
    out["argsort_axis0_ties"] = case(lambda P, x: [P.argsort(x, axis=0), P.sort(x, axis=0)], x=_tied("argsort0", 50, 6))
    out["topk_axis0_ties"] = case(lambda P, x: list(P.topk(x, 3, axis=0)), x=_tied("topk_axis0_ties", 20, 7))
    out["median_all_ties"] = case(lambda P, x: [P.median(x)], x=_tied("median_all_ties", 5, 8))
    out["median_inf_nan"] = case(lambda P, x: [P.median(x, axis=1)], x=MEDIAN_EDGES)
    out["median_int"] = case(lambda P, x: [P.median(x, axis=1)], x=_tied("median_int", 6, 7).astype("int64"))
    return out


def _op(P, op, ins, outs, attrs, stop=()):
    """One op appended to the program as Paddle's op tests and saved programs hold it (``block.append_op``, no
    layer): its outputs, ``stop`` of them without a gradient."""
    block = P.static.default_main_program().current_block()
    made = {s: block.create_var(name=f"{op}_{s}_{len(block.ops)}", dtype=dt) for s, dt in outs.items()}
    block.append_op(
        type=op, inputs={s: [v] for s, v in ins.items()}, outputs={s: [v] for s, v in made.items()}, attrs=attrs
    )
    for s in stop:
        made[s].stop_gradient = True
    return list(made.values())


def _nll(P, x, label, reduction, weight=None):
    ins = {"X": x, "Label": label, **({"Weight": weight} if weight is not None else {})}
    outs = {"Out": "float32", "Total_weight": "float32"}
    return _op(P, "nll_loss", ins, outs, {"reduction": reduction, "ignore_index": 1}, stop=("Total_weight",))


def _loss_0d_cases():
    """kldiv_loss and nll_loss appended as ops: their one-value results 0-D (Paddle 2.6's InferMeta), with
    nll_loss's Total_weight 0-D (reduction 'none' too: 0). Before 2026-11-29 pe gave them [1]."""
    out = {}
    for red in ("mean", "sum", "batchmean", "none"):
        out[f"kldiv_loss_op_{red}"] = case(
            lambda P, x, t, r=red: _op(P, "kldiv_loss", {"X": x, "Target": t}, {"Loss": "float32"}, {"reduction": r}),
            x=np.log(KL_P),
            t=KL_T,
        )
    for red in ("mean", "sum", "none"):
        out[f"nll_loss_op_{red}"] = case(lambda P, x, label, r=red: _nll(P, x, label, r), x=NLL_X, label=NLL_LABEL)
        out[f"nll_loss_op_{red}_weight"] = case(
            lambda P, x, label, w, r=red: _nll(P, x, label, r, w), x=NLL_X, label=NLL_LABEL, w=NLL_W
        )
    # (X of 4 dims reduced: Paddle 2.6.2's CPU kernel corrupts its heap and aborts; 'none' only)
    out["nll_loss_op_none_4d_weight"] = case(
        lambda P, x, label, w: _nll(P, x, label, "none", w), x=NLL_X4, label=NLL_L4, w=NLL_W
    )
    return out


def _allclose_cases():
    """paddle.allclose at infinities, NaN and the bound's edge, paddle.isclose at its bound (Paddle builds the
    isclose op, whose bound is a double; pe composed ops in float32 before 2026-11-30), and the op appended with Rtol / Atol tensors and
    string tolerances (as op_test.py and saved programs hold it): Paddle 2.6's rule (equal values close, within
    1e-15 of the bound). Before 2026-11-30 pe computed Fluid 1.8's (|inf - inf| is NaN: not close) and refused
    Rtol / Atol."""
    return {
        "allclose_edges": case(
            lambda P, x, y, n: [
                P.allclose(x, y),
                P.allclose(x, y, rtol=0.0, atol=0.0),
                P.allclose(x, x, equal_nan=True),
                P.allclose(n, n),
                P.allclose(n, n, equal_nan=True),
                P.allclose(x[:2], y[:2] * 1.5),
            ],
            grad=False,
            x=AC_X,
            y=AC_Y,
            n=np.where(np.isinf(AC_X), NAN, AC_X).astype("float32"),
        ),
        "isclose_bounds": case(
            lambda P, x, y, z, w: [
                P.isclose(x, y, rtol=1e-3, atol=1e-5),
                P.isclose(z, w),
                P.isclose(z, w, equal_nan=True),
                P.isclose(P.cast(x, "float64"), P.cast(y, "float64"), rtol=1e-3, atol=1e-5),
            ],
            grad=False,
            x=IC_A,
            y=IC_B,
            z=np.concatenate([AC_X, [NAN, NAN, 1.0]]).astype("float32"),
            w=np.concatenate([AC_Y, [NAN, 1.0, NAN]]).astype("float32"),
        ),
        "allclose_op_tensors": case(
            lambda P, x, y, r, a: _op(
                P,
                "allclose",
                {"Input": x, "Other": y, "Rtol": r, "Atol": a},
                {"Out": "bool"},
                {"rtol": "1e-05", "atol": "1e-08", "equal_nan": False},
            ),
            grad=False,
            x=AC_X,
            y=AC_Y * np.float32(1.01),
            r=np.array([0.02], "float64"),
            a=np.array([0.0], "float64"),
        ),
    }


def _equality_cases():
    """paddle.equal / not_equal / == / equal_all of floats: Paddle 2.6's EqualFunctor counts values within 1e-8
    equal, an infinity equal only to itself, NaN to nothing; equal_all compares the shapes when the program runs.
    Before 2026-11-30 pe compared exactly and decided equal_all from the declared shapes. amax / amin (their ops:
    ties within 1e-8 still apart), isnan / isinf / isfinite (their _v2 ops) and nan_to_num, which pe composed of
    equal ops."""
    return {
        "amax_amin_flags_ops": case(
            lambda P, x: [
                P.amax(x),
                P.amax(x, axis=1),
                P.amin(x, axis=0, keepdim=True),
                P.isnan(x * 0.0),
                P.isinf(x * 1e38),
                P.isfinite(x * 1e38),
                P.nan_to_num(x * 1e38 - x * 1e38),
                P.nan_to_num(x * 1e38, posinf=7.0, neginf=-7.0),
            ],
            x=np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, -1.0], [0.0, 1e-9, 0.0, -2.0]], "float32"),
        ),
        "equality_near": case(
            lambda P, x, y, a, b: [
                P.equal(x, y),
                P.not_equal(x, y),
                x == y,
                x != y,
                P.equal_all(x, y),
                P.equal_all(x[:3], y[:3]),
                P.equal(a, b),
                P.equal_all(a, a),
            ],
            grad=False,
            x=EQ_X,
            y=EQ_Y,
            a=EQ_X.astype("float64") * 1e300,
            b=EQ_Y.astype("float64") * 1e300,
        ),
    }


def _matrix_rank_cases():
    """paddle.linalg.matrix_rank as Paddle 2.6 builds it (the matrix_rank op): the default tolerance, a float, a
    tolerance Tensor per matrix (TolTensor, broadcast with x's batch dims), hermitian. Before 2026-11-30 pe read a
    TolTensor's first value for every matrix (and gave the batch's shape, not the broadcast one) without a word."""
    rng = np.random.default_rng(31)
    sym = rng.random((2, 4, 4))
    return {
        "matrix_rank_forms": case(
            lambda P, x, t, t5, x5, s: [
                P.linalg.matrix_rank(x),
                P.linalg.matrix_rank(x, t),
                P.linalg.matrix_rank(x, 0.5),
                P.linalg.matrix_rank(x5, t5),
                P.linalg.matrix_rank(s, hermitian=True),
                P.linalg.matrix_rank(s, 1.0, hermitian=True),
            ],
            grad=False,
            x=rng.random((3, 4, 5, 6)).astype("float32"),
            t=rng.random((3, 4)).astype("float32"),
            t5=rng.random((1, 4)).astype("float64"),
            x5=rng.random((5, 1)).astype("float64"),
            s=(sym + sym.transpose(0, 2, 1)).astype("float64"),
        )
    }


def _diag_cases():
    """paddle.diag and paddle.diagonal as Paddle 2.6 builds them (the diag_v2 and diagonal ops; diag's output stops
    the gradient): offsets inside and outside the matrix, padding values, a 3-D x. Before 2026-11-30 pe composed
    gather_nd and pad (a gradient flowed back through diag; a dim of unknown size was refused)."""
    return {
        "diag_diagonal_ops": case(
            lambda P, x, v: [
                P.diag(x),
                P.diag(x, offset=1),
                P.diag(x, offset=-2),
                P.diag(v, offset=1, padding_value=7),
                P.diag(v, padding_value=-1.5),
                P.diagonal(x),
                P.diagonal(x, offset=2),
                P.diagonal(P.reshape(x, [3, 2, 2]), 1, 0, 2),
                P.sum(P.diagonal(x) * 2.0) + P.sum(P.diag(x)),
            ],
            x=DIAG_X,
            v=DIAG_V,
        ),
        "diagonal_empty": case(lambda P, x: [P.diagonal(x, offset=9)], grad=False, x=DIAG_X),
        "crop_default_shape": case(lambda P, x: [P.crop(x)], x=DIAG_X),
        "unique_consecutive_op": case(
            lambda P, x, m: [
                *P.unique_consecutive(x, return_inverse=True, return_counts=True),
                *P.unique_consecutive(m, return_inverse=True, return_counts=True, axis=0, dtype="int32"),
                P.unique_consecutive(m),
            ],
            grad=False,
            x=np.array([1.0, 1.0, NAN, NAN, 2.0, 2.0, 1.0, 3.0, 3.0], "float32"),
            m=np.array([[1, 2], [1, 2], [3, 4], [3, 4], [1, 2]], "int64"),
        ),
    }


def _reduce_0d_cases():
    """mean and l1_norm appended as ops (``block.append_op``) in a Paddle 2.x program: 0-D, as Paddle 2.6's
    InferMeta gives. Before 2026-11-30 pe gave them Fluid's [1] (only ``paddle.mean`` gave 0-D). flatten2 of a 0-D
    X: [1] (Flatten2Op::GetOutputShape; Paddle 2.6.2 has no flatten op left); pe gave [1, 1]."""
    return {
        **{
            f"{op}_op": case(lambda P, x, op=op: _op(P, op, {"X": x}, {"Out": "float32"}, {}), x=X0)
            for op in ("mean", "l1_norm")
        },
        "flatten_0d_ops": case(
            lambda P, x: [
                _op(P, "flatten2", {"X": x}, {"Out": "float32", "XShape": "float32"}, {"axis": 0})[0],
            ],
            x=np.array(2.5, "float32"),
        ),
    }


IC_B = np.random.default_rng(155).uniform(-3, 3, 1024).astype("float32")  # (3 of them decided by the double bound)
IC_A = (  # (each a at atol + rtol |b| from b, as near the bound as float32 comes: Paddle's double bound decides)
    IC_B + (1e-5 + 1e-3 * np.abs(IC_B.astype(np.float64))) * np.random.default_rng(156).choice([-1, 1], 1024)
).astype("float32")
EQ_X = np.array([1e-9, 0.0, 1.0, np.inf, NAN, -np.inf, 3.0, 1.0 + 2e-7, 5e-9, -np.inf], "float32")
EQ_Y = np.array([0.0, -5e-9, 1.0, np.inf, NAN, np.inf, 3.0, 1.0, -5e-9, -np.inf], "float32")
DIAG_X = np.arange(12, dtype="float32").reshape(3, 4) - 5
DIAG_V = np.array([1.5, -2.0, 3.0], "float32")
AC_X = np.array([np.inf, 1.0, -np.inf, 2.0, 0.0, 1e-3], "float32")
AC_Y = np.array([np.inf, 1.0, -np.inf, 2.0, -0.0, 1.00001e-3], "float32")
KL_P = np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]], "float32")
KL_T = np.array([[0.3, 0.3, 0.4], [0.5, 0.0, 0.5], [0.2, 0.7, 0.1]], "float32")
NLL_X = np.log(np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5], [0.7, 0.2, 0.1]], "float32"))
NLL_LABEL = np.array([2, 0, 1, 0], "int64")
NLL_X4 = np.random.default_rng(7).uniform(-3.0, 0.0, (2, 3, 2, 2)).astype("float32")
NLL_L4 = np.array([[[0, 2], [1, 1]], [[2, 0], [1, 2]]], "int64")
NLL_W = np.array([0.5, 2.0, 1.5], "float32")
PS_X = np.random.default_rng(11).uniform(-2.0, 2.0, (2, 3, 2, 8)).astype("float32")
POW_X = np.array([[-2.0, -1.0, 0.0, 0.0, 2.0, 3.0, -0.5, 0.0]], "float32")
POW_Y = np.array([[2.0, 3.0, 2.0, 0.0, 0.5, 2.0, 1.0, -1.0]], "float32")
LOG_SIGMOID = np.array([-np.inf, np.inf, 0.0, -100.0, 50.0, NAN, -20.0, 17.0], "float32")
INF_ROWS = np.array(
    [[np.inf, 1.0, 2.0, 3.0], [np.inf, np.inf, 0.0, 1.0], [-np.inf, 0.0, 1.0, 2.0], [-np.inf] * 4], "float32"
)
LCSE = np.array([[1.0, NAN, np.inf, -np.inf], [2.0, 0.5, np.inf, -np.inf], [NAN, 1.0, 3.0, 0.0]], "float32")
MEDIAN_EDGES = np.array(
    [[1.0, np.inf, 2.0, 3.0], [1.0, 2.0, -np.inf, 5.0], [1.0, NAN, 2.0, 0.0], [4.0, 2.0, 2.0, 1.0]], "float32"
)

CASES = {
    "atan2_edges": case(lambda P, x, y: [P.atan2(x, y)], x=X, y=Y),
    "fmax_ties_nan": case(lambda P, x, y: [P.fmax(x, y)], x=X, y=Y),
    "fmin_ties_nan": case(lambda P, x, y: [P.fmin(x, y)], x=X, y=Y),
    "heaviside_nan": case(lambda P, x, y: [P.heaviside(x, y)], x=X, y=Y),
    "lerp_number": case(lambda P, x, y: [P.lerp(x, y, 0.3)], x=X, y=Y),
    "lerp_tensor_weight": case(lambda P, x, y, w: [P.lerp(x, y, w)], x=X, y=Y, w=P),
    "trunc_nan": case(lambda P, x: [P.trunc(x * 1.5)], x=X),
    "frac_nan": case(lambda P, x: [P.frac(x * 1.5)], x=X),
    "asinh_zero": case(lambda P, x: [P.asinh(x)], x=X),
    "acosh_one": case(lambda P, x: [P.acosh(x)], x=ACOSH),
    "atanh": case(lambda P, p: [P.atanh(p * 0.5)], p=P),
    "logit_ends": case(lambda P, p: [P.logit(p)], p=P),
    "logit_eps": case(lambda P, p: [P.logit(p, eps=0.05)], p=P),
    "celu_zero": case(lambda P, x: [P.nn.functional.celu(x)], x=X),
    "rrelu_eval_zero_nan": case(lambda P, x: [P.nn.functional.rrelu(x, training=False)], x=X),
    "leaky_relu_zero_nan": case(lambda P, x: [P.nn.functional.leaky_relu(x, 0.1)], x=X),
    # alpha <= 0: Paddle 2.6's gradient reads X (1 where X >= 0, alpha where X < 0); Fluid's read Out
    "pixel_shuffle_nhwc": case(lambda P, x: [P.nn.functional.pixel_shuffle(x, 2, data_format="NHWC")], x=PS_X),
    "leaky_relu_alpha_negative": case(lambda P, x: [P.nn.functional.leaky_relu(x, -0.2)], x=X),
    "leaky_relu_alpha_zero": case(lambda P, x: [P.nn.functional.leaky_relu(x, 0.0)], x=X),
    "leaky_relu_op_alpha_negative": case(
        lambda P, x: _op(P, "leaky_relu", {"X": x}, {"Out": "float32"}, {"alpha": -0.5}), x=X
    ),
    "sqrt_abs_zero": case(lambda P, x: [P.sqrt(P.abs(x))], x=X),
    "log_softmax_masked": case(lambda P, z: [P.nn.functional.log_softmax(z, axis=1)], z=MASKED),
    "log_softmax_masked_axis0": case(lambda P, z: [P.nn.functional.log_softmax(z, axis=0)], z=MASKED),
    "norm_2_axis_zero_row": case(lambda P, x: [P.linalg.norm(x * P.assign(ZERO_ROW), p=2, axis=1)], x=X0),
    "norm_fro_zero": case(lambda P, x: [P.linalg.norm(x * 0.0, p="fro")], x=X0),
    "norm_fro_two_axes": case(lambda P, x: [P.linalg.norm(P.reshape(x, [2, 2, 4]), p="fro", axis=[1, 2])], x=X0),
    "norm_3_all": case(lambda P, x: [P.linalg.norm(x, p=3)], x=X0),
    "norm_inf_two_axes": case(lambda P, x: [P.linalg.norm(P.reshape(x, [2, 2, 4]), p=float("inf"), axis=[1, 2])], x=X0),
    "normalize_zero_row": case(lambda P, x: [P.nn.functional.normalize(x * P.assign(ZERO_ROW), axis=1)], x=X0),
    "dist_same": case(lambda P, x: [P.dist(x, x * 1.0, p=2)], x=X0),
    "clip_inf_grad": case(lambda P, x: [P.erfinv(P.clip(x * 0.5, -1.0, 1.0))], x=X0),
    "tan_log2_log10": case(lambda P, x: [P.tan(x), P.log2(P.abs(x) + 1), P.log10(P.abs(x) + 1)], x=X0),
    "pow_grad_y_nonpositive": case(lambda P, x, y: [P.pow(x, y)], x=POW_X, y=POW_Y),
    "log_sigmoid_edges": case(lambda P, x: [P.nn.functional.log_sigmoid(x)], x=LOG_SIGMOID),
    "logsumexp_inf": case(lambda P, x: [P.logsumexp(x, axis=1), P.logsumexp(x[1:3], axis=1)], x=INF_ROWS),
    "logcumsumexp_inf": case(lambda P, x: [P.logcumsumexp(x, axis=1)], x=INF_ROWS),
    "logcumsumexp_nan_inf_axis0": case(lambda P, x: [P.logcumsumexp(x, axis=0)], x=LCSE),
    "logcumsumexp_nan_last_axis": case(lambda P, x: [P.logcumsumexp(P.transpose(x, [1, 0]), axis=1)], x=LCSE),
    "label_smooth_stops_gradient": case(
        lambda P, x: [P.nn.functional.label_smooth(x * 2.0, epsilon=0.1), x * 3.0], x=X0
    ),
    **_tie_cases(),
    **_loss_0d_cases(),
    **_reduce_0d_cases(),
    **_allclose_cases(),
    **_diag_cases(),
    **_equality_cases(),
    **_matrix_rank_cases(),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle26_edges_oracle.py")
