"""``fluid.dygraph.base``: ``guard(place)`` switches to eager execution, ``to_variable(value)``
makes a variable of an array there (pe_cli/fluid/dygraph/eager.py)."""

import contextlib
import functools

import numpy as np

from ...base.places import CPUPlace
from ...framework import switch_main_program, switch_startup_program
from ...framework.program import Program
from .eager import EagerProgram
from ..unsupported import DYGRAPH, refuse

_active = []  # the EagerPrograms of the guards entered, innermost last


def enabled():
    """True inside ``guard()``."""
    return bool(_active)


@contextlib.contextmanager
def guard(place=None):
    """Within it, ``fluid.default_main_program()`` is an eager program: each op appended to its block
    runs at once by its kernels on ``place`` (default CPUPlace()); so is the startup program, on the
    same scope: a layer's parameters (fluid.dygraph.BatchNorm's) hold their initial values as soon as
    the layer is made. A guard inside another of the same place keeps its eager program: variables
    made outside it are used inside (Paddle's eager tensors outlive a nested guard)."""
    outer = _active[-1] if _active else None
    if outer is not None and (place is None or str(place) == str(outer.place)):
        program, startup = outer, outer.startup
    else:
        program = EagerProgram(place if place is not None else CPUPlace())
        startup = program.startup = EagerProgram(program.place, program.scope)
    old_main, old_startup = switch_main_program(program), switch_startup_program(startup)
    _active.append(program)
    try:
        yield
    finally:
        _active.pop()
        switch_main_program(old_main)
        switch_startup_program(old_startup)


def to_variable(value, name=None, zero_copy=None):
    """A variable of the current guard holding ``value`` (an ndarray), stop_gradient True as Fluid's."""
    if not _active:
        raise RuntimeError("to_variable: it can only be used in dygraph mode (inside fluid.dygraph.guard())")
    if not isinstance(value, np.ndarray):
        raise TypeError(
            f"The type of 'value' in fluid.dygraph.to_variable must be numpy.ndarray, but received {type(value)}."
        )
    return _active[-1].global_block().variable_of(value, name)


def switch_to_static_graph(func):
    """Paddle 2.x's decorator: ``func`` builds a static graph even when called inside ``guard()``
    (there on fresh default programs, the eager ones coming back after it)."""

    @functools.wraps(func)
    def impl(*args, **kwargs):
        if not _active:
            return func(*args, **kwargs)
        saved = list(_active)
        old_main, old_startup = switch_main_program(Program()), switch_startup_program(Program())
        _active.clear()
        try:
            return func(*args, **kwargs)
        finally:
            _active.extend(saved)
            switch_main_program(old_main)
            switch_startup_program(old_startup)

    return impl


@contextlib.contextmanager
def _no_grad_guard():
    yield


def no_grad(func=None):
    """Fluid's ``no_grad`` (a context manager, or a decorator of ``func``): outside dygraph mode it
    changes nothing, as Fluid's; inside ``guard()`` pe's eager ops (the ones Fluid's op tests run) keep
    what they need for ``backward()``."""
    if func is None:
        return _no_grad_guard()

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _no_grad_guard():
            return func(*args, **kwargs)

    return wrapper


refuse(
    globals(),
    "fluid.dygraph",
    ["enable_dygraph", "disable_dygraph", "enable_imperative", "disable_imperative", "grad"],
    DYGRAPH,
)
