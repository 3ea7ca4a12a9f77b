"""gumbel_softmax's gradient is Paddle's formula of its own (random) Out: in one run, the fetched X@GRAD of
sum(Out * W) equals Out (W - sum(W Out)) / temperature for the Out of that run (finite differences cannot
apply: every run draws anew)."""

import numpy as np

from op_test import OpCase, build_program, _feeds
from pe_cli.base.places import CPUPlace
from pe_cli.executor import Executor, Scope


def test_gumbel_softmax_gradient_is_paddles_formula():
    x = np.random.default_rng(3).uniform(-1, 1, (4, 5))
    case = OpCase(
        "gumbel_softmax", {"X": x}, lambda i, a: {}, attrs={"temperature": 0.7}, grad=("X",), outputs=("Out",)
    )
    program, names, _, weights = build_program(case, ("Out",), with_loss=True)
    out, dx = Executor(CPUPlace()).run(
        program, feed={**_feeds(case, names), **weights}, fetch_list=["out_Out", "X_0@GRAD"], scope=Scope()
    )
    w = weights["w_Out"]
    want = out * (w - np.sum(w * out, axis=-1, keepdims=True)) / np.float32(0.7)
    np.testing.assert_allclose(dx, want, rtol=1e-10, atol=1e-12)
