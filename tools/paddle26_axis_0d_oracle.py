"""Paddle 2.6.2 as the oracle of an axis given to a 0-D tensor in a Paddle 2.x static program: Paddle 2.6 reads a
0-D tensor's axis 0 or -1 as the one dim of a tensor of one element, and the result stays 0-D (softmax and
log_softmax along it, gumbel_softmax, topk (any k), sort and argsort, argmax/argmin (with keepdim: [1]), the
reductions over dim 0 or -1, keepdim too: sum, mean, max, min, amax, prod, all, any, logsumexp, std, var, nansum,
nanmean, count_nonzero; squeeze, median, logcumsumexp, cummax, cummin), where pe before 2026-11-29 refused them at
build time ("dim 0 is out of range for X []"), failed (divided by zero, an index out of range) or gave [1]. Records each case's values, dtype, shape and the float inputs' gradients into
tests/data/paddle_oracle/axis_0d26.json, with tools/paddle_function_oracle.py's runner;
tests/paddle/test_paddle_function_oracle.py replays them on pe.

    /work/p26/bin/python tools/paddle26_axis_0d_oracle.py    # paddlepaddle==2.6.2"""

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

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "axis_0d26.json")

X = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -4.5]], "float32")  # (its sum: 2.5)
I = np.array([[3, 1, 2], [0, 5, 4]], "int64")


def _s(P, x):
    """x's sum times 0.5: a 0-D tensor of 1.25 carrying a gradient."""
    return P.sum(x) * 0.5


CASES = {
    "softmax": case(lambda P, x: [P.nn.functional.softmax(_s(P, x)), P.nn.functional.softmax(_s(P, x), axis=0)], x=X),
    "softmax_float64": case(lambda P, x: [P.nn.functional.softmax(_s(P, x), dtype="float64")], x=X),
    "log_softmax": case(
        lambda P, x: [P.nn.functional.log_softmax(_s(P, x)), P.nn.functional.log_softmax(_s(P, x), axis=0)], x=X
    ),
    "topk": case(lambda P, x: [*P.topk(_s(P, x), 1), *P.topk(_s(P, x), 1, axis=0), P.topk(_s(P, x), 2)[0]], x=X),
    "sort_argsort": case(
        lambda P, x: [P.sort(_s(P, x)), P.sort(_s(P, x), axis=0, descending=True), P.argsort(_s(P, x))], x=X
    ),
    "argmax_argmin": case(
        lambda P, x: [
            P.argmax(_s(P, x), axis=0),
            P.argmin(_s(P, x), axis=-1),
            P.argmax(_s(P, x), axis=0, keepdim=True),
        ],
        grad=False,
        x=X,
    ),
    "sum": case(lambda P, x: [P.sum(_s(P, x), axis=0), P.sum(_s(P, x), axis=-1, keepdim=True)], x=X),
    # (grad=False: Paddle 2.6.2's reduce_mean_grad refuses a 0-D X with dim 0, "The reduce dim index 0 should be
    # in the range [-dimension(X), dimension(X)]"; pe's gives the gradient of a mean of one value)
    "mean": case(
        lambda P, x: [
            P.mean(_s(P, x), axis=0),
            P.mean(_s(P, x), axis=[-1]),
            P.mean(_s(P, x), axis=0, keepdim=True),
        ],
        grad=False,
        x=X,
    ),
    "int_sum": case(lambda P, i: [P.sum(P.sum(i), axis=0)], i=I),
    "max_min_prod": case(
        lambda P, x: [
            P.max(_s(P, x), axis=-1),
            P.min(_s(P, x), axis=0),
            P.amax(_s(P, x), axis=0),
            P.amin(_s(P, x), axis=-1),
            P.prod(_s(P, x), axis=0),
        ],
        x=X,
    ),
    "all_any": case(lambda P, x: [P.all(P.sum(x) > 0, axis=0), P.any(P.sum(x) < 0, axis=-1)], grad=False, x=X),
    "logsumexp": case(lambda P, x: [P.logsumexp(_s(P, x), axis=0), P.logsumexp(_s(P, x))], x=X),
    "std_var": case(  # (grad=False: through reduce_mean_grad, above)
        lambda P, x: [P.std(_s(P, x), axis=0), P.var(_s(P, x), axis=-1, unbiased=False)], grad=False, x=X
    ),
    "nan_reductions": case(
        lambda P, x: [P.nansum(_s(P, x), axis=0), P.nanmean(_s(P, x), axis=0), P.count_nonzero(_s(P, x), axis=0)],
        x=X,
    ),
    "squeeze_median": case(
        lambda P, x: [
            P.squeeze(_s(P, x), axis=0),
            P.squeeze(_s(P, x), axis=[-1]),
            P.median(_s(P, x), axis=0),
            P.median(_s(P, x), axis=-1, keepdim=True),
        ],
        x=X,
    ),
    "gumbel_softmax": case(
        lambda P, x: [P.nn.functional.gumbel_softmax(_s(P, x)), P.nn.functional.gumbel_softmax(_s(P, x), hard=True)],
        x=X,
    ),
    "logcumsumexp": case(lambda P, x: [P.logcumsumexp(_s(P, x), axis=0), P.logcumsumexp(_s(P, x), axis=-1)], x=X),
    # (grad=False: Paddle 2.6.2's cummax_grad of a 0-D x gives 0, where the running maximum of one value passes
    # its gradient on (pe's); its cummin_grad of a 0-D x ends the process, SIGSEGV)
    "cummax_cummin": case(lambda P, x: [*P.cummax(_s(P, x), axis=0), *P.cummin(_s(P, x), axis=-1)], grad=False, x=X),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle26_axis_0d_oracle.py")
