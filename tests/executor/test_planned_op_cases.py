"""Planned CPU steps (pe_cli/executor/step_plan.py, the default) give the bits of op-by-op steps on every op case
of tests/ops: the case's program (its op; for a gradient case, the loss's program with its backward ops:
op_test.case_program) run four times on one executor, the same feed each time (fresh copies) in a fresh scope:
the first two runs op by op, the program then planned, the last two planned. Every fetched value (outputs, and
the gradients of a gradient case) has the dtype, shape, LoD and bytes of the first run's (NaNs where it has
them); a random op's (dropout in training, whose Generator draws anew each run), those of the same run of an
executor run op by op whose Generators draw the same numbers. The plan's buffers are filled with 0xFF bytes (NaN, -1) before the planned runs, as ``np.empty`` may
give them: a launch that leaves part of its output unwritten shows.

Segments run as a planned step's first runs do, their launches called one by one (PE_SEGMENT_COMPILE_AFTER);
a few gradient cases also with their segments compiled. A program whose only op has no launches
(its out-kernel gives none) has nothing planned: only the cases of ops whose CPU out-kernel gives launches
run forward here; every gradient case runs (its loss's ops are launched)."""

import os
from unittest import mock

import numpy as np
import pytest

from op_test import case_program
from pe_cli.base.places import CPUPlace
from pe_cli.base.selected_rows import SelectedRows
from pe_cli.executor import Executor, Scope, segment
from pe_cli.framework import default_generator
from pe_cli.framework.lod_tensor import LoDTensor
from pe_cli.ops import registry
from tests.executor.test_planned_step import planned_runs
from tests.ops.test_ops import CASES


def _launching(op_type):
    """True where the op's CPU out-kernel gives launches (for some variant)."""
    structured = registry.get(op_type).structured
    out_kernel = None if structured is None else structured.out_kernel("cpu")
    return getattr(out_kernel, "launches", None) is not None


FORWARD_CASES = [c for c in CASES if _launching(c.op)]
GRAD_CASES = [c for c in CASES if c.grad]
COMPILED_CASES = [  # gradient cases whose own ops (forward and gradient) are launched, a loop family each
    "fused_gemm_epilogue_trans_xy_relu",
    "pool2d_max_ceil_mode",
    "softmax_with_cross_entropy_3d",
    "matmul_batch_x_matrix_y",
]


def _bits(value):
    """A fetched value as what must match: its kind, dtype, shape, LoD (rows, height) and bytes."""
    if isinstance(value, SelectedRows):
        rows, values = value.numpy()
        return ("rows", value.height, _bits(rows), _bits(values))
    if isinstance(value, LoDTensor):
        return ("lod", value.lod(), _bits(np.array(value)))
    if isinstance(value, list):  # a LoDTensorArray
        return ("list", [_bits(v) for v in value])
    array = np.asarray(value)
    return (array.dtype.str, array.shape, array.tobytes())


def _run_four_times(case, grads, compiled):
    """(fetch list, the four runs' fetched values as _bits, the plan kept); asserts the last two ran planned."""
    program, feed, fetch_list = case_program(case, grads)
    default_generator.manual_seed(SEED)  # (before the executor makes a random op's Generator)
    exe, runs = Executor(CPUPlace()), []
    for i in range(4):
        if i == 2:
            plans = planned_runs(exe, 1)
            assert len(plans) == 1, f"{case.id}: {len(plans)} plans kept after two runs op by op, not one"
            kept = plans[0]
            for buffer in kept.plan.buffers.values():
                buffer.reshape(-1).view(np.uint8).fill(0xFF)
        fetched = exe.run(program, feed=feed(), fetch_list=fetch_list, scope=Scope(), return_numpy=False)
        runs.append([_bits(v) for v in fetched])
    assert planned_runs(exe, 1) == [kept], f"{case.id}: the plan was dropped (a value not as planned)"
    segments = [e for e in kept.entries if type(e) is not int]
    assert [(s.runs, s.fn is not None) for s in segments] == [(2, compiled)] * len(segments), case.id
    return fetch_list, runs, kept


SEED = 5  # the default generator's, before each executor: a random op draws the same numbers in both


def _op_by_op_runs(case, grads):
    """The four runs' fetched values (as _bits) of an executor that runs every step op by op."""
    program, feed, fetch_list = case_program(case, grads)
    with mock.patch.dict(os.environ, {"PE_PLANNED_STEP": "0"}):
        default_generator.manual_seed(SEED)
        exe = Executor(CPUPlace())
        return [
            [_bits(v) for v in exe.run(program, feed=feed(), fetch_list=fetch_list, scope=Scope(), return_numpy=False)]
            for _ in range(4)
        ]


def _assert_planned_bits(case, grads, compiled=False):
    """Each run's values are the first's; a random op's (its Generator draws anew each run), the same run's of
    an executor of op-by-op steps whose Generators draw the same numbers."""
    fetch_list, runs, kept = _run_four_times(case, grads, compiled)
    launched = [s.op.type for s, launches in zip(kept.plan.steps, kept.plan.launches) if launches is not None]
    random = registry.get(case.op).needs_rng
    want = _op_by_op_runs(case, grads) if random else [runs[0]] * 4
    for n in (1, 2, 3):
        for name, first, again in zip(fetch_list, want[n], runs[n]):
            assert again == first, (
                f"{case.id}: {name} of run {n + 1} ({'planned' if n > 1 else 'op by op'}, launched: {launched}) "
                f"differs from {'that run of an op-by-op executor' if random else 'run 1'}'s (op by op)"
            )
    return launched


@pytest.fixture
def interpreted(monkeypatch):
    """Segments whose launches are called one by one (none compiled in this process: else it is taken at once)."""
    monkeypatch.setattr(segment, "_compiled", {})
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "1000")
    monkeypatch.setenv("PE_PLANNED_STEP", "1")


@pytest.mark.parametrize("case", FORWARD_CASES, ids=[c.id for c in FORWARD_CASES])
def test_forward_planned_gives_op_by_ops_bits(interpreted, case):
    _assert_planned_bits(case, grads=False)


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.id for c in GRAD_CASES])
def test_gradient_planned_gives_op_by_ops_bits(interpreted, case):
    assert _assert_planned_bits(case, grads=True), f"{case.id}: no op of the loss's program launched"


@pytest.mark.parametrize("name", COMPILED_CASES)
def test_gradient_compiled_segments_give_op_by_ops_bits(monkeypatch, name):
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "0")
    monkeypatch.setenv("PE_PLANNED_STEP", "1")
    (case,) = [c for c in GRAD_CASES if c.id == name]
    launched = _assert_planned_bits(case, grads=True, compiled=True)
    assert {case.op, f"{case.op}_grad"} <= set(launched), launched
