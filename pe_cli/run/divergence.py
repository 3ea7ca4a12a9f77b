"""Divergence: a run whose loss became NaN or Inf stops, and says where the first bad value came
from; a checkpoint never holds non-finite parameters.

Kernels never modify arrays in place (each writes new ones; an update writes in place only an array
donated to the run, never one the scope lent, and ``Scope.get_array`` lends these: executor/donation.py),
so the persistable arrays a scope holds before a step stay as they were: keeping references to them (``StepStart``) costs no
copy, only the memory of one step's old parameters. When the loss turns out non-finite, the step is run
again from them on one device, through the plain Executor, with ``check_nan_inf`` on: the first op
that writes a NaN or Inf is named, with its layer and the line of the model file that built it.
numpy's own floating-point warnings (overflow, invalid value, divide by zero) are silenced while a
run trains (``quiet_float_warnings``): what they would say, pe says once, as that error.
"""

import contextlib
import warnings

import numpy as np

from ..base.errors import NanInfError
from ..executor import global_scope, nan_check


class StepStart:
    """The persistable values of the current scope before a step (references, not copies)."""

    def __init__(self, names):
        scope = global_scope()
        self.values = {name: scope.get_array(name) for name in names}

    def restore(self):
        scope = global_scope()
        for name, array in self.values.items():
            if array is not None:
                scope.set_array(name, array)


def first_bad_op(exe, program, batch, start):
    """Runs ``program`` on ``batch`` from ``start`` with check_nan_inf on: the NanInfError message
    of the first op that writes a NaN or Inf, or None when none does (the scope is left at
    ``start``'s values)."""
    start.restore()
    try:
        with nan_check.enabled():
            exe.run(program, feed=batch, fetch_list=[])
    except NanInfError as e:
        return str(e)
    finally:
        start.restore()
    return None


def non_finite(names):
    """The names among ``names`` whose value in the current scope holds NaN or Inf."""
    scope = global_scope()
    bad = []
    for name in names:
        array = scope.get_array(name)
        if array is None:
            continue
        if hasattr(array, "copy_to_host"):
            array = array.copy_to_host()
        if array.dtype.kind in "fc" and not np.isfinite(array).all():
            bad.append(name)
    return bad


@contextlib.contextmanager
def quiet_float_warnings():
    """No numpy RuntimeWarning about floating-point values while training: a non-finite loss is
    pe's one-line error (with the op that made it), and a finite one needs no warning. The filter
    is the process's (the parallel executor's threads see it too), restored on leaving."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", r"(overflow|underflow|invalid value|divide by zero) encountered", RuntimeWarning
        )
        yield
