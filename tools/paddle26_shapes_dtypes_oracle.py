"""Paddle 2.6.2 as the oracle of the shapes and dtypes of results where Paddle 2.6 differs from Fluid 1.8, in a
Paddle 2.x static program. Results that hold one value are 0-D ([]) in Paddle 2.6, where Fluid 1.8 and pe
before 2026-11-29 gave [1] (so ``paddle.stack`` of two such values was
[2, 1], not [2]): an index that drops every dim (``x[0, 1]``, ``paddle.shape(x)[0]``, ``x[-1][2]``), numel,
rank, sign of ints (Paddle 2.6 takes them), argmax/argmin over all of x (with keepdim: 1s in x's rank), dot and matmul of vectors, trace, dist, einsum to a scalar, allclose, is_empty, accuracy, auc, median,
quantile, the slices of unbind/unstack of a vector, gather at a 0-D index; and a bool mask as an index
(``v[v > 1]``: the elements where it is true, as Paddle 2.6's; pe read the mask as an int index); the sum of
an int32 or bool tensor is int64 (pe summed int32 in int32, overflowing). Records each case's values, dtype,
shape and the float inputs' gradients into tests/data/paddle_oracle/shapes_dtypes26.json, with
tools/paddle_function_oracle.py's runner; tests/paddle/test_paddle_function_oracle.py replays them on pe.

    /work/p26/bin/python tools/paddle26_shapes_dtypes_oracle.py    # paddlepaddle==2.6.2"""

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

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "shapes_dtypes26.json")

X = np.arange(12, dtype="float32").reshape(4, 3) * 0.5 - 2.0
V = np.array([3.0, -1.5, 2.25, 0.5], "float32")
SQ = np.array([[2.0, -1.0, 0.5], [0.25, 3.0, -2.0], [1.5, 0.75, -0.5]], "float32")
P = np.array([[0.1, 0.7, 0.2], [0.5, 0.25, 0.25], [0.3, 0.3, 0.4], [0.05, 0.15, 0.8]], "float32")
LABEL = np.array([[1], [2], [2], [0]], "int64")
PB = np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7], [0.9, 0.1], [0.45, 0.55], [0.7, 0.3]], "float32")
LB = np.array([[1], [0], [0], [0], [1], [1]], "int64")


def _stopped(v):
    """``v`` with its stop_gradient set (a squeeze with nothing to drop is a new Variable: x keeps its gradient)."""
    v.stop_gradient = True
    return v


CASES = {
    "element": case(lambda P, x: [x[0, 1], x[-1, -1] * 2.0], x=X),
    "row_then_element": case(lambda P, x: [x[1][2], x[1:3][0][1]], x=X),
    "vector_element": case(lambda P, v: [v[2], v[-1] + v[0]], v=V),
    "stack_of_elements": case(lambda P, x: [P.stack([x[0, 1], x[1, 2], x[3, 0]])], x=X),
    "shape_element": case(lambda P, x: [P.shape(x)[0], P.shape(x)[-1]], grad=False, x=X),
    "reshape_by_shape_element": case(lambda P, x: [P.reshape(x, [P.shape(x)[0], -1, 1])], x=X),
    # (grad=False: Paddle 2.6.2's strided_slice_grad fails on it, "Input dimension size should be equal to 1")
    "strided_element": case(lambda P, x: [x[::2][1, ::-1][0]], grad=False, x=X),
    "row_and_column_keep_dims": case(lambda P, x: [x[0], x[:, 1], x[1:2, 2]], x=X),
    "numel_rank": case(lambda P, x: [P.numel(x), P.rank(x)], grad=False, x=X),
    "dot": case(lambda P, v, x: [P.dot(v, v * 2.0), P.dot(x, x)], v=V, x=X),
    "matmul_vectors": case(lambda P, v: [P.matmul(v, v)], v=V),
    "trace": case(lambda P, s: [P.trace(s), P.trace(s, offset=1)], s=SQ),
    "dist": case(lambda P, x: [P.dist(x, x * 0.5), P.dist(x, x * 0.5, p=float("inf")), P.dist(x, x * 2, p=0)], x=X),
    "einsum_scalar": case(lambda P, v, s: [P.einsum("i,i->", v[:3], v[1:]), P.einsum("ii->", s)], v=V, s=SQ),
    "allclose_is_empty": case(lambda P, x: [P.allclose(x, x * 1.0000001), P.is_empty(x)], grad=False, x=X),
    "accuracy": case(
        lambda P, p, label: [P.metric.accuracy(p, label), P.static.accuracy(p, label, k=2)],
        grad=False,
        p=P,
        label=LABEL,
    ),
    "auc": case(lambda P, p, label: list(P.static.auc(p, label, num_thresholds=15)[:2]), grad=False, p=PB, label=LB),
    "median": case(lambda P, x, v: [P.median(x), P.median(v, axis=0), P.median(x, axis=1)], grad=False, x=X, v=V),
    "quantile": case(
        lambda P, x, v: [P.quantile(x, 0.3), P.quantile(v, [0.25, 0.5]), P.quantile(x, 0.75, axis=1)],
        grad=False,
        x=X,
        v=V,
    ),
    "unbind_unstack_vector": case(lambda P, v: [P.unbind(v)[1], P.unstack(v)[2], P.stack(P.unbind(v)[:2])], v=V),
    "gather_0d_index": case(lambda P, x: [P.gather(x, P.full([], 2, "int64"))], x=X),
    # (grad=False: Paddle 2.6.2's gradient of a gather along axis 1 at a 0-D index is wrong, -0.5 at every row
    # of the column for X's [4, 3] below where d(sum(o * o / 2 + o)) is o + 1: docs/COMPAT.md)
    "gather_0d_index_axis1": case(lambda P, x: [P.gather(x, P.full([], 1, "int64"), axis=1)], grad=False, x=X),
    "bool_mask": case(lambda P, v, x: [v[v > 1.0], x[x > 0.0], x[x[:, 0] > -1.0]], v=V, x=X),
    "int32_sum": case(
        lambda P, i, x: [P.sum(i), P.sum(i.reshape([2, 2]), axis=1), i.sum(), P.sum(x > 0)],
        grad=False,
        i=np.array([2**30, 2**30, 5, -7], "int32"),
        x=X,
    ),
    "transpose_squeeze_0d": case(
        lambda P, x: [
            P.transpose(P.sum(x), []),
            P.squeeze(P.mean(x)),
            P.unsqueeze(P.max(x), [0]),
            P.reshape(x[0:1, 0], []),
        ],
        x=X,
    ),
    "argmax_argmin_flattened": case(
        lambda P, x: [
            P.argmax(x),
            P.argmax(x, keepdim=True),
            P.argmin(x, dtype="int32"),
            P.argmin(x, keepdim=True),
            x.argmax(),
        ],
        grad=False,
        x=X,
    ),
    "sign_of_ints": case(
        lambda P, i, j, u: [P.sign(i), P.sign(j), P.sign(u)],
        grad=False,
        i=np.array([-3, 0, 2, -1, 7], "int8"),
        j=np.array([[-300, 0], [5, -1]], "int64"),
        u=np.array([3, 0, 250], "uint8"),
    ),
    "gather_at_argmax": case(lambda P, x: [P.gather(P.flatten(x), P.argmax(x))], x=X),
    "arange_tensor_bounds": case(
        lambda P, x: [P.arange(P.shape(x)[1]), P.arange(P.shape(x)[0], 7, 2), P.arange(0, P.sum(x) * 0.0 + 2.5, 0.5)],
        grad=False,
        x=X,
    ),
    "squeeze_of_nothing_is_new": case(lambda P, x: [x * x + _stopped(P.squeeze(x))], x=X),
    "matrix_rank": case(lambda P, s: [P.linalg.matrix_rank(s)], grad=False, s=SQ),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle_indexing_oracle.py")
