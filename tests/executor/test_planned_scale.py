"""scale in a planned CPU step (PE_PLANNED_STEP=1): a loss scaled as Fluid programs scale it (``x * 0.5``, a
bias before or after, a ScaleTensor) is launched in a segment, its "loop" variant's loop (the out-kernel's
``launches``, kernels/cpu/scaling.py), its gradient (a scale op too) as well; every loss and parameter the bits
of op by op."""

import pytest

from pe_cli import fluid
from tests.executor.test_planned_step import compiled_segments, planned_runs, small_run  # noqa: F401 (a fixture)


def _run(monkeypatch, planned, bias_after, tensor):
    """x -> fc -> scale -> fc -> mean, SGD, three steps: (losses and parameters, executor)."""

    def hidden(x):
        s = fluid.layers.fill_constant([1], "float32", 0.37) if tensor else 0.37
        return fluid.layers.scale(fluid.layers.fc(x, 13), scale=s, bias=0.3, bias_after_scale=bias_after)

    return small_run(monkeypatch, planned, hidden)


@pytest.mark.parametrize("bias_after,tensor", [(True, False), (False, False), (True, True)])
def test_scale_and_its_gradient_are_launched_with_op_by_ops_bits(monkeypatch, bias_after, tensor):
    planned, exe = _run(monkeypatch, True, bias_after, tensor)
    unplanned, _ = _run(monkeypatch, False, bias_after, tensor)
    assert all(a.dtype == b.dtype and a.tobytes() == b.tobytes() for a, b in zip(planned, unplanned))
    (run,) = planned_runs(exe, 1)
    launched = [
        (step.op.type, [launch.fn.__name__ for launch in launches] if launches else None)
        for step, launches in zip(run.plan.steps, run.plan.launches)
        if step.op.type == "scale"
    ]
    assert launched == [("scale", ["scale"])] * 2  # the forward's and its gradient's
