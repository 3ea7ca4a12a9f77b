"""What a state dict leaves out, said (issue 99: no load is partial in silence). ``set_state_dict`` /
``set_dict`` of a Layer, ``Program.set_state_dict`` and ``set_program_state`` warn per key as Paddle 2.6.2
does (docs/COMPAT.md, "State dicts": its wording, measured on the oracle) and, with these helpers, name
the keys no variable took (a dict wrapped as ``{"model": ..., "epoch": ...}`` with the key to give) and
refuse in one line, before setting anything, when a parameter the dict does not set has no value: pe
would otherwise run with it uninitialized (Paddle runs on into an op's error)."""

import warnings
from collections.abc import Mapping

from ..base.errors import PeError


def has_value(scope, name):
    """Whether variable ``name`` holds a value in ``scope`` (the startup program, or a load, gave it one)."""
    var = scope.find_var(name)
    if var is None:
        return False
    initialized = getattr(var, "is_initialized", None)
    return bool(initialized()) if callable(initialized) else True


def wrapped_hint(state_dict, keys):
    """``" ('model' holds a dict with 2 of its keys: give state_dict['model'])"``, for a key of
    ``state_dict`` whose value is a dict holding some of ``keys`` (what a training loop saves as
    ``{"model": net.state_dict(), "epoch": n}``); else ""."""
    keys = set(keys)
    for name, value in state_dict.items():
        if isinstance(value, Mapping):
            found = sum(1 for k in value if k in keys)
            if found:
                return f" ({name!r} holds a dict with {found} of its keys: give state_dict[{name!r}])"
    return ""


def warn_unused(who, unused, state_dict, keys):
    """One warning naming the keys of ``state_dict`` that set no variable (Paddle's Layer says nothing of them)."""
    if unused:
        shown = ", ".join(repr(k) for k in unused[:20]) + (f" and {len(unused) - 20} more" if len(unused) > 20 else "")
        warnings.warn(
            f"{who}: not used, no variable has the key(s) {shown}{wrapped_hint(state_dict, keys)}", stacklevel=3
        )


def refuse_unset(who, unset, state_dict, keys):
    """``unset``: [(key, variable name)] of the parameters the dict did not set that hold no value: one line
    naming them, the dict's keys and, for a wrapped dict, the key to give."""
    if not unset:
        return
    names = ", ".join(f"{k!r}" if k == n else f"{k!r} ({n})" for k, n in unset[:10])
    more = f" and {len(unset) - 10} more" if len(unset) > 10 else ""
    given = ", ".join(repr(k) for k in list(state_dict)[:10]) or "none"
    raise PeError(
        f"{who}: the parameter(s) {names}{more} have no value (the startup program has not run) and the "
        f"state dict sets none for them (its keys: {given}): pe refuses to run with them uninitialized"
        f"{wrapped_hint(state_dict, keys)}"
    )
