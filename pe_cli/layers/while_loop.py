"""Fluid 1.8's functional loop, ``while_loop(cond, body, loop_vars)``, on the ``While`` layer: the
body's results are assigned back to the loop variables (and cond's new value to the condition)
at the end of each iteration."""
from ..base.errors import PeError
from ..framework.variable import Variable
from .control_flow import While
from .utils import assert_same_structure, flatten, is_sequence, map_structure
from .creation import assign

__all__ = ["while_loop"]


def _check_cond(value):
    if not isinstance(value, Variable) or value.dtype != "bool":
        raise PeError(f"while_loop: cond must return a bool Variable, got {value!r}")
    size = 1
    for d in value.shape or [1]:
        size *= d
    if size != 1:
        raise PeError(f"while_loop: cond must return one bool (shape [1]), got shape {list(value.shape)}")


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds; returns the loop
    variables (updated in place). ``body`` returns as many values as ``loop_vars``, nested alike."""
    if not callable(cond) or not callable(body):
        raise PeError(f"while_loop: cond and body must be callables, got {type(cond).__name__} and "
                      f"{type(body).__name__}")
    if not is_sequence(loop_vars) or not loop_vars:
        raise PeError("while_loop: loop_vars must be a non-empty list or tuple of Variables")
    if not all(isinstance(v, Variable) for v in flatten(loop_vars)):
        raise PeError("while_loop: every loop variable must be a Variable (fill_constant(...) for a number)")
    pre_cond = cond(*loop_vars)
    _check_cond(pre_cond)
    loop = While(pre_cond, is_test=is_test, name=name)
    with loop.block():
        outputs = body(*loop_vars)
        outputs = list(outputs) if is_sequence(outputs) else [outputs]
        if len(outputs) != len(loop_vars):
            raise PeError(f"while_loop: body returned {len(outputs)} values for {len(loop_vars)} loop_vars; it must "
                          f"return the same number, nested alike")
        assert_same_structure(list(loop_vars), outputs, "loop variables")
        now_cond = cond(*outputs)
        _check_cond(now_cond)
        map_structure(lambda new, old: None if new is old else assign(new, old), outputs, list(loop_vars))
        assign(now_cond, pre_cond)
    return loop_vars
