"""Fluid 1.8's ``fluid.dygraph.BCELoss`` and ``NLLLoss``: in a static program they append Fluid's bce_loss /
nll_loss op (and its weighting and reduction), inside ``fluid.dygraph.guard()`` they run there (eagerly,
as Fluid's op tests call them); the values are numpy's, and a bad reduction is Fluid's ValueError."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

rng = np.random.default_rng(76)
P = rng.uniform(0.1, 0.9, (3, 4))
T = rng.uniform(0.0, 1.0, (3, 4))
W = rng.uniform(0.5, 1.5, (4,))
LOGP = np.log(rng.dirichlet(np.ones(3), size=(2, 5)).transpose(0, 2, 1))  # [N=2, C=3, 5]
LABEL = rng.integers(0, 3, (2, 5))


def _bce(weight=None, reduction="mean"):
    loss = -(T * np.log(P) + (1 - T) * np.log(1 - P)) * (1 if weight is None else weight)
    return {"mean": loss.mean(), "sum": loss.sum(), "none": loss}[reduction]


def _nll_none():
    return -np.take_along_axis(LOGP, LABEL[:, None, :], 1)[:, 0, :]


def test_static_programs_append_fluids_ops_and_compute_their_values():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        p, t = fluid.data("p", [3, 4], "float64"), fluid.data("t", [3, 4], "float64")
        w = fluid.data("w", [4], "float64")
        logp, label = fluid.data("logp", [2, 3, 5], "float64"), fluid.data("label", [2, 5], "int64")
        outs = [
            fluid.dygraph.BCELoss()(p, t),
            fluid.dygraph.BCELoss(weight=w, reduction="sum")(p, t),
            fluid.dygraph.NLLLoss(reduction="none")(logp, label),
            fluid.dygraph.NLLLoss()(logp, label),
        ]
    types = [op.type for op in main.global_block().ops]
    assert types.count("bce_loss") == 2 and types.count("nll_loss") == 2
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"p": P, "t": T, "w": W, "logp": LOGP, "label": LABEL}, fetch_list=outs
    )
    np.testing.assert_allclose(got[0].reshape(()), _bce(), rtol=1e-10)
    np.testing.assert_allclose(got[1].reshape(()), _bce(W, "sum"), rtol=1e-10)
    np.testing.assert_allclose(got[2], _nll_none(), rtol=1e-10)  # a 3-D input: reshaped to 4-D and back
    np.testing.assert_allclose(got[3], [_nll_none().mean()], rtol=1e-10)


def test_inside_guard_they_run_eagerly():
    with fluid.dygraph.guard():
        bce = fluid.dygraph.BCELoss(reduction="none")(fluid.dygraph.to_variable(P), fluid.dygraph.to_variable(T))
        nll = fluid.dygraph.NLLLoss(reduction="sum")(fluid.dygraph.to_variable(LOGP), fluid.dygraph.to_variable(LABEL))
        np.testing.assert_allclose(bce.numpy(), _bce(reduction="none"), rtol=1e-10)
        np.testing.assert_allclose(nll.numpy(), [_nll_none().sum()], rtol=1e-10)


def test_a_bad_reduction_is_fluids_value_error():
    with pytest.raises(ValueError, match="'reduction' in bce_loss"):
        fluid.dygraph.BCELoss(reduction="max")
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()), pytest.raises(ValueError, match="'reduction' in nll_loss"):
        fluid.dygraph.NLLLoss(reduction="max")(fluid.data("x", [2, 3], "float32"), fluid.data("y", [2], "int64"))
