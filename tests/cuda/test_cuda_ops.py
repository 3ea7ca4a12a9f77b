"""Every op case of tests/ops/ on the CUDA kernels: forward outputs and input gradients must match
the CPU kernels' (float32: 1e-5 relative for elementwise ops, 1e-4 for reductions and products).
Shapes are shrunk where the simulator would be slow. Plus: every registered op has a CUDA kernel."""

import dataclasses

import numpy as np
import pytest

from op_test import _attrs_with_defaults, analytic_grads, run_forward
from pe_cli.framework.lod_tensor import LoDTensor
from pe_cli.ops import registry
from pe_cli.base.selected_rows import SelectedRows
from tests.ops.cases_indexing import topk_ref
from tests.ops.test_ops import all_cases

# Ops whose results sum many terms (products, reductions, normalizations): 1e-4 relative.
SUMMING = {
    "mul",
    "mul_grad",
    "matmul",
    "matmul_grad",
    "matmul_grad_x",
    "matmul_grad_y",
    "matmul_v2",
    "matmul_v2_grad",
    "mean",
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "softmax",
    "log_softmax",
    "softmax_with_cross_entropy",
    "cross_entropy",
    "cross_entropy2",
    "sigmoid_cross_entropy_with_logits",
    "batch_norm",
    "layer_norm",
    "conv2d",
    "depthwise_conv2d",
    "pool2d",
    "clip_by_norm",
    "squared_l2_norm",
    "sum",
    "accuracy",
    "expand",
    "gather",
    "lookup_table",
    "concat",
    "sequence_pool",
    "sequence_softmax",
    "sequence_expand",
    "lstm",
    "sequence_conv",
    "row_conv",
    "sequence_expand_as",
    "gru",
    "gru_unit",
    "lstmp",
}

rng = np.random.default_rng(11)

# Per-case overrides for the simulator: case id -> function(case) -> smaller case.
SHRINK = {
    # sized for the CPU's Winograd path (64 output tiles); CUDA has no such path, and 5x4 checks its kernel
    "conv2d_winograd": lambda c: dataclasses.replace(c, inputs={**c.inputs, "Input": c.inputs["Input"][:, :, :5, :4]}),
    # sized for the CPU's loop split over threads (2**20 multiply-adds: 13-18 s a gradient under the simulator);
    # 2 x 20x12 @ 12x20 still spans 3x3 of the simulator's 8x8 tiles, with a partial K slab and partial edge tiles
    "matmul_v2_stacked_large": lambda c: dataclasses.replace(
        c, inputs={"X": c.inputs["X"][:2, :20, :12], "Y": c.inputs["Y"][:2, :12, :20]}
    ),
    # sized for the CPU's rows on threads; the simulator runs a block reduction's threads one Python thread each
    "beam_log_probs_float32_rows_on_threads": lambda c: dataclasses.replace(
        c,
        inputs={
            "Logits": c.inputs["Logits"][:2, :, :300],
            "Finished": c.inputs["Finished"][:2],
            "NoEnd": c.inputs["NoEnd"][:300],
            "PreScores": c.inputs["PreScores"][:2],
        },
    ),
}


def _as_float32(case):
    """The case with float64 inputs in float32, the dtype models train in; only cases with a
    float64 input get a float32 twin."""

    def f32(v):
        if isinstance(v, list):
            return [f32(a) for a in v]
        if isinstance(v, LoDTensor):
            return LoDTensor(f32(np.asarray(v)), v.lod())
        if isinstance(v, SelectedRows):
            return v.with_arrays(v.rows, f32(v.values))
        v = np.asarray(v)
        return v.astype(np.float32) if v.dtype == np.float64 else v

    inputs = {k: f32(v) for k, v in case.inputs.items()}
    attrs = dict(case.attrs)
    if attrs.get("in_dtype") in ("float64", 6):  # (a name, or Paddle's VarType number: FP64 6, FP32 5)
        attrs["in_dtype"] = "float32" if attrs["in_dtype"] == "float64" else 5
    return dataclasses.replace(case, inputs=inputs, attrs=attrs, name=case.id + "-float32")


def _has_float64(case):
    values = [a for v in case.inputs.values() for a in (v if isinstance(v, list) else [v])]
    return any((a.values if isinstance(a, SelectedRows) else np.asarray(a)).dtype == np.float64 for a in values)


def _cases():
    cases = [SHRINK.get(c.id, lambda c: c)(c) for c in all_cases()]
    return cases + [_as_float32(c) for c in cases if _has_float64(c)]


CASES = _cases()
IDS = [c.id for c in CASES]


def _tolerance(case):
    return (1e-4, 1e-5) if case.op in SUMMING else (1e-5, 1e-6)


def _assert_close(got, want, case, what):
    rtol, atol = _tolerance(case)
    assert got.shape == want.shape, f"{case.id}: {what} shape {got.shape} on CUDA, {want.shape} on the CPU"
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{case.id}: {what} CUDA != CPU")
    else:
        np.testing.assert_array_equal(got, want, err_msg=f"{case.id}: {what} CUDA != CPU")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_matches_cpu(case):
    got = run_forward(case, "cuda")
    if case.check is not None:  # random ops: same checks as on the CPU
        case.check(got, case.inputs)
        if not _attrs_with_defaults(case).get("seed"):
            return
    want = run_forward(case, "cpu")
    assert set(got) == set(want)
    if case.op == "top_k" and "ties" in case.id:
        # equal values: Paddle's GPU top_k orders them by index, its CPU one as libstdc++'s partial_sort (pe's
        # CPU kernel), docs/COMPAT.md; the values are the same
        want = dict(want, Indices=topk_ref(case.inputs, _attrs_with_defaults(case))["Indices"])
    for slot in want:
        _assert_close(np.asarray(got[slot]), np.asarray(want[slot]), case, f"output {slot}")


SPARSE_CASES = [
    c
    for c in CASES
    if c.ref is not None
    and "sparse" in c.id
    and any(isinstance(v, SelectedRows) for v in c.ref(c.inputs, _attrs_with_defaults(c)).values())
]


@pytest.mark.parametrize("case", SPARSE_CASES, ids=[c.id for c in SPARSE_CASES])
def test_row_sparse_output_matches_cpu(case):
    """A SelectedRows output stays row-sparse on CUDA: the same rows, in order, and close values."""
    got, want = run_forward(case, "cuda", return_numpy=False), run_forward(case, "cpu", return_numpy=False)
    for slot, w in want.items():
        if isinstance(w, SelectedRows):
            assert isinstance(got[slot], SelectedRows) and got[slot].height == w.height, case.id
            np.testing.assert_array_equal(got[slot].rows, w.rows)
            _assert_close(got[slot].values, w.values, case, f"output {slot} values")


GRAD_CASES = [c for c in CASES if c.grad]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.id for c in GRAD_CASES])
def test_gradient_matches_cpu(case):
    got = analytic_grads(case, "cuda")[0]
    want = analytic_grads(case, "cpu")[0]
    for name in want:
        _assert_close(got[name], want[name], case, f"gradient {name}")


def test_every_op_has_a_cuda_kernel():
    missing = []
    for op_type in registry.all_op_types():
        try:
            registry.get(op_type).kernel("cuda")
        except Exception as e:  # noqa: BLE001 - report them all at once
            missing.append(f"{op_type}: {e}")
    assert not missing, "ops without a CUDA kernel:\n" + "\n".join(missing)
