"""The classification family's elementwise and row losses as structured kernels (label_smooth, kldiv_loss,
nll_loss, teacher_student_sigmoid_loss, log_loss, bce_loss, hinge_loss, modified_huber_loss and their gradients:
pe_cli/shapes/loss_classification.py, kernels/cpu/loss_classification.py), and the regression and ranking losses
(huber_loss, smooth_l1_loss, center_loss, margin_rank_loss, rank_loss, bpr_loss: shapes/loss_pairwise.py,
kernels/cpu/loss_regression.py and loss_ranking.py): numpy forms (``fresh`` variants; label_smooth's float forms
write through ``out=``) whose
meta rules decide the outputs' shapes and dtypes and the variant (PriorDist or not, a reduction or none) once per
signature; each out-kernel puts new arrays of the Meta's shapes and dtypes, never an input's memory, equal to the
op's kernel's; a value a loss cannot take (a class out of range, X outside [0, 1]) is refused on every run."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_cross_entropy import _floats, _fresh
from tests.kernels.test_structured_kernels import CASES, _filled_completely, _step

rng = np.random.default_rng(31)


def _grad_inputs(op, ins, outs, dtype):
    """The grad op's inputs: the forward's inputs and outputs it reads, a random gradient of each output."""
    given = dict(ins, **outs)
    for slot, value in outs.items():
        given[slot + "@GRAD"] = rng.uniform(-1, 1, size=value.shape).astype(dtype)
    return {s.name: given[s.name] for s in registry.get(op).inputs if s.name in given}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["classification losses"], ids=[c.id for c in CASES["classification losses"]])
def test_loss_out_kernels_give_new_arrays_of_their_meta(case, dtype):
    """Every op case of the eight losses (PriorDist, each reduction, class weights, ignore_index, 4-D nll_loss),
    forward and gradient, float64 and float32: new arrays of the Meta's shapes and dtypes, the kernel's bits."""
    attrs, ins = _attrs_with_defaults(case), _floats(case, dtype)
    outs = _computed(case.op, ins, attrs)
    if case.grad:
        grad = case.op + "_grad"
        _computed(grad, _grad_inputs(grad, ins, outs, dtype), attrs)


_PAIRWISE = CASES["regression and ranking losses"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _PAIRWISE, ids=[c.id for c in _PAIRWISE])
def test_regression_and_ranking_out_kernels_give_new_arrays_of_their_meta(case, dtype):
    """Every op case of huber_loss, smooth_l1_loss (weighted or not), center_loss (need_update or not),
    margin_rank_loss, rank_loss and bpr_loss, forward and gradient, float64 and float32."""
    attrs, ins = _attrs_with_defaults(case), _floats(case, dtype)
    outs = _fresh(case.op, ins, attrs)
    if case.grad:
        grad = case.op + "_grad"
        _fresh(grad, _grad_inputs(grad, ins, outs, dtype), attrs)


def _computed(op, ins, attrs):
    """The op's out-kernel's outputs: a fresh variant's new arrays, or the sentinel buffers it was handed filled
    completely (label_smooth's float forms, written through ``out=``), the op's kernel's bits either way."""
    ctx = KernelContext()
    if registry.get(op).structured.meta(attrs, ins, ctx).fresh:
        return _fresh(op, ins, attrs)
    outs = _filled_completely(op, ins, attrs, ctx)
    want = registry.get(op).kernel("cpu")(ins, dict(attrs), ctx)
    assert all(outs[slot].tobytes() == want[slot].tobytes() for slot in want), op
    return outs


def test_an_nll_loss_step_decides_its_meta_once_per_shape_signature():
    """nll_loss's step decides its outputs once per shape and dtype of X and Label (the reduction's variant),
    gives the op's kernel's bits, and refuses a class out of range on every run."""
    step = _step(
        "nll_loss", {"X": ["x"], "Label": ["label"]}, {"Out": ["y"], "Total_weight": ["w"]}, {"reduction": "none"}
    )
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, decided.variant, decided.outputs["Out"][0]))
        return decided

    inner.meta = counted
    kernel = registry.get("nll_loss").kernel("cpu")
    x = rng.uniform(-3, 0, (4, 5)).astype(np.float32)
    feeds = [(x, rng.integers(0, 5, (4,))) for _ in range(3)] + [(x[:2], rng.integers(0, 5, (2,)))]
    for x_value, label in feeds:
        values = Values({"x": x_value, "label": label})
        run_step(step, values)
        want = kernel({"X": x_value, "Label": label}, dict(step.attrs))
        assert (
            values["y"].tobytes() == want["Out"].tobytes() and values["w"].tobytes() == want["Total_weight"].tobytes()
        )
    assert calls == [((4, 5), "none", (4,)), ((2, 5), "none", (2,))]
    for _ in range(2):
        with pytest.raises(Exception, match=r"nll_loss: Label holds a class outside \[0, 5\)"):
            run_step(step, Values({"x": x, "label": np.array([1, 7, 0, 2])}))


def test_bce_loss_refuses_a_probability_outside_0_1_on_every_run():
    """bce_loss's step refuses X outside [0, 1] each time such values come (its meta kept for the shape)."""
    step = _step("bce_loss", {"X": ["x"], "Label": ["label"]}, {"Out": ["y"]})
    label = np.full((3, 1), 0.5, np.float32)
    for x in (np.array([[0.2], [1.5], [0.1]], np.float32), np.array([[-0.1], [0.5], [0.1]], np.float32)) * 2:
        with pytest.raises(Exception, match=r"bce_loss: X holds a value outside \[0, 1\]"):
            run_step(step, Values({"x": x, "label": label}))
    values = Values({"x": np.array([[0.2], [1.0], [0.0]], np.float32), "label": label})
    run_step(step, values)
    assert np.isfinite(values["y"]).all()


def test_label_smooth_meta_names_its_form():
    """label_smooth's variant is "prior" where PriorDist is given, "uniform" (epsilon / K) where not."""
    meta = registry.get("label_smooth").structured.meta
    x = np.zeros((2, 4), np.float32)
    assert meta({"epsilon": 0.1}, {"X": x}, KernelContext()).variant == "uniform"
    prior = meta({"epsilon": 0.1}, {"X": x, "PriorDist": np.zeros((1, 4), np.float32)}, KernelContext())
    assert prior.variant == "prior" and prior.outputs["Out"] == ((2, 4), np.dtype(np.float32))
