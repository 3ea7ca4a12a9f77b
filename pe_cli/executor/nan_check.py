"""check_nan_inf: after each op its float outputs are checked, and the first NaN or Inf stops the
run naming the op, the output, the layer and where it was built (Paddle's ``FLAGS_check_nan_inf``).

On with ``FLAGS_check_nan_inf=1`` in the environment, ``check_nan_inf: true`` in a run config,
``pe train --check-nan-inf``, or ``enable()``; ``plan.run_step`` asks ``ENABLED`` after each op, so
it costs nothing when off. When on, every float output is scanned once (a device array is copied
to the host first): see README for the measured cost.
"""

import contextlib
import os

import numpy as np

from ..base.errors import NanInfError
from ..base.selected_rows import SelectedRows

ENABLED = os.environ.get("FLAGS_check_nan_inf", "").lower() in ("1", "true", "yes")


def enable(on=True):
    global ENABLED
    ENABLED = bool(on)


@contextlib.contextmanager
def enabled(on=True):
    """Checks on (or off) inside the block, as before after it."""
    global ENABLED
    before, ENABLED = ENABLED, bool(on)
    try:
        yield
    finally:
        ENABLED = before


def check_outputs(step, values):
    """Raises NanInfError for the first output of ``step`` (a plan.OpStep) holding NaN or Inf."""
    for slot, names, _ in step.outputs:
        for name in names:
            array = values.get(name)
            if array is None:
                continue
            if isinstance(array, SelectedRows):
                array = array.values
            if hasattr(array, "copy_to_host"):
                array = array.copy_to_host()
            if array.dtype.kind not in "fc" or np.isfinite(array).all():
                continue
            nan, inf = int(np.isnan(array).sum()), int(np.isinf(array).sum())
            raise NanInfError(
                f"{step.op.describe()} wrote {nan} NaN and {inf} Inf of {array.size} values into "
                f"its output '{name}' ({slot})",
                step.op,
                step.device,
            )
