"""Paddle 2.0-alpha's keywords. Paddle's develop branch at the release/1.8 branch point (whose op tests
pe runs, docs/OPTEST.md) had a first ``paddle.*`` API: ``paddle.argmax(input=...)``,
``paddle.sum(input=..., dim=..., keep_dim=...)``, ``paddle.squeeze(x, axes=...)``, ``out=`` (the result also
written to a given variable), ``device=``. pe's ``paddle.*`` follows Paddle 2.6; where a 2.0-alpha keyword
names what a 2.6 parameter does, the 2.6 function takes it too, by keyword only (``renamed``), and
``out`` / ``device`` where 2.0-alpha had them. A call never gives both names of one parameter."""

import functools

from ..layers.creation import assign_array_like, check_device


def written_to(result, out):
    """2.0-alpha's ``out=``: the result is also written to the variable ``out`` (an assign op), which is
    returned; None: the result."""
    if out is None:
        return result
    assign_array_like(result, out)
    return out


def renamed(out=False, device=False, **names):
    """The 2.6 function takes 2.0-alpha's keyword ``old`` for each ``old=new`` of ``names``; with ``out``,
    2.0-alpha's ``out=`` (written_to); with ``device``, its ``device=`` (None, 'cpu' or 'gpu'; pe places
    every op where the executor runs)."""

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            for old, new in names.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{fn.__name__}() got both '{old}' (Paddle 2.0-alpha's name) and '{new}'")
                    kwargs[new] = kwargs.pop(old)
            if device:
                check_device(fn.__name__, kwargs.pop("device", None))
            target = kwargs.pop("out", None) if out else None
            return written_to(fn(*args, **kwargs), target)

        return call

    return wrap


def or_alpha(alpha_fn, keywords):
    """The 2.6 function, or ``alpha_fn`` (2.0-alpha's, which pe has as a Fluid layer) for a call that
    gives one of ``keywords``, 2.0-alpha's names that 2.6's signature lacks: where the two differ in more
    than names (defaults, checks), the keywords say which API a call is written for."""

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            return (alpha_fn if keywords & set(kwargs) else fn)(*args, **kwargs)

        return call

    return wrap
