"""Fluid 1.8's functional loop, ``while_loop(cond, body, loop_vars)``, on the ``While`` layer: the
body's results are assigned back to the loop variables (and cond's new value to the condition)
at the end of each iteration."""

from ..base.errors import PeError
from ..framework.variable import Variable
from .control_flow import While
from .checks import check_type, check_variable_and_dtype
from .utils import assert_same_structure, flatten, is_sequence, map_structure, pack_sequence_as
from .creation import assign

__all__ = ["while_loop"]


def _check_cond(value):
    check_variable_and_dtype(value, "var of cond returned", ("bool",), "fluid.layers.while_loop")
    size = 1
    for d in value.shape or [1]:
        size *= d
    if size != 1:
        raise TypeError(
            f"the shape of the variable returned by cond should be [1],but given shape as {list(value.shape)}."
        )


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds; returns the loop
    variables (updated in place). ``body`` returns as many values as ``loop_vars``, nested alike; it
    gets copies of the lists and dicts among them (it may change those, as Fluid's). Bad arguments
    raise Fluid's TypeError / ValueError."""
    if not callable(cond):
        raise TypeError("cond in while_loop should be callable")
    if not callable(body):
        raise TypeError("body in while_loop should be callable")
    check_type(loop_vars, "loop_vars", (list, tuple), "fluid.layers.while_loop")
    if not loop_vars:
        raise ValueError("loop_vars in while_loop should not be empty")
    if not all(isinstance(v, Variable) for v in flatten(loop_vars)):
        raise PeError("while_loop: every loop variable must be a Variable (fill_constant(...) for a number)")
    pre_cond = cond(*loop_vars)
    _check_cond(pre_cond)
    loop = While(pre_cond, is_test=is_test, name=name)
    with loop.block():
        outputs = body(*pack_sequence_as(list(loop_vars), flatten(loop_vars)))
        outputs = list(outputs) if is_sequence(outputs) else [outputs]
        if len(outputs) != len(loop_vars):
            raise ValueError(
                f"body in while_loop should return the same arity (length and structure) as "
                f"loop_vars: {len(outputs)} values for {len(loop_vars)}"
            )
        try:
            assert_same_structure(list(loop_vars), outputs, "loop variables")
        except ValueError as e:
            raise ValueError(
                f"body in while_loop should return the same arity (length and structure) as loop_vars: {e}"
            ) from None
        now_cond = cond(*outputs)
        map_structure(lambda new, old: None if new is old else assign(new, old), outputs, list(loop_vars))
        assign(now_cond, pre_cond)
    return loop_vars
