"""Errors users see. Each carries enough context to be printed as one line."""

import difflib
import importlib
import types


class PeError(Exception):
    """Base class: a mistake in the user's program, config or data, explained in one line."""


class EnforceNotMet(PeError):
    """``fluid.core.EnforceNotMet``: a check that Fluid makes in its C++ core (shape inference, a
    fed value, a LoD) failed. Scripts catch it by that name; pe's errors of those kinds are one."""


class ShapeError(EnforceNotMet, ValueError):
    """A layer was given inputs whose shapes cannot work together (a ValueError too, as Paddle 2.x's
    shape inference raises its InvalidArgument errors)."""


class FeedError(EnforceNotMet, ValueError):
    """A missing feed, or a fed value of the wrong shape or dtype (a ValueError too, as Fluid's feed
    check raises: tests/data/fluid_oracle/exceptions.json)."""


class FeedSplitError(FeedError, RuntimeError):
    """A dict feed that cannot be split over the devices of a data-parallel run (a RuntimeError too,
    as Fluid's ParallelExecutor raises)."""


class EOFException(PeError):
    """``fluid.core.EOFException``: a py_reader's data ended during ``exe.run``. A script catches it,
    calls ``reader.reset()`` and starts the next epoch."""


class UnknownOpError(PeError, ValueError):
    """An op type the registry does not have (a ValueError too, as Fluid raises)."""


class ArgumentTypeError(PeError, TypeError):
    """A layer given an argument of the wrong type or dtype (a TypeError too, as Fluid's checks raise)."""


class ArgumentValueError(PeError, ValueError):
    """A layer given an argument of the right type but a wrong value or nesting (a ValueError too, as Fluid's)."""


class UnknownDtypeError(ArgumentValueError, TypeError):
    """A dtype name no tensor can have ('intt32'): a TypeError too, as numpy's (and so Fluid's) ``np.dtype``
    raises, and a ValueError as pe raised it before."""


class ArgumentAssertionError(PeError, AssertionError):
    """A layer argument Fluid checks with an assert (reshape's shape with two -1): an AssertionError too."""


class WaitTimeout(PeError, RuntimeError):
    """A bounded wait ended without what it waited for (a DataLoader's ``timeout``, a peer that never
    answers): the message names what was awaited and the bound that ran out (a RuntimeError too, as
    Paddle's DataLoader raises on its workers' failures)."""


class ReaderError(PeError, ValueError):
    """A reader's process (a DataLoader worker) raised or died: the message names it and the cause (a
    ValueError too, as Fluid's multiprocess_reader raises)."""


class UsageError(PeError):
    """Arguments that cannot apply together (``--resume PATH --out OTHER``): the command exits 2."""


class OpError(EnforceNotMet):
    """An op failed while running; names the op, its device and where it was built (Fluid's EnforceNotMet,
    which every failure of a C++ op raises)."""

    def __init__(self, message, op=None, device=None):
        super().__init__(message)
        self.op = op
        self.device = device


class OpEnforceError(OpError, EnforceNotMet):
    """An op's check failed when it ran (its values' dtypes, a missing LoD: kernels/run_checks.py), which
    Fluid's C++ core raises as EnforceNotMet: scripts catch it by that name."""


MESSAGE_CHARS = 1200  # the most of one line of an error a command prints (its start names the file or key)
MESSAGE_LINES = 24  # the most lines (a config's mistakes are listed 20 at most, then a count)


def shortened(message):
    """``message`` as a command prints it: whole when it is short, else at most MESSAGE_LINES lines
    (the first ones, how many were cut, the last one) of at most MESSAGE_CHARS characters each (a
    line's start, where the file or key is named, how much was cut, its end). An error quoting a 3 MB
    line of data stays one line."""
    lines = message.splitlines() or [message]
    if len(lines) > MESSAGE_LINES:
        lines = lines[: MESSAGE_LINES - 2] + [f"[... {len(lines) - MESSAGE_LINES + 1:,} lines cut ...]", lines[-1]]
    return "\n".join(_cut(line) for line in lines)


def _cut(line):
    if len(line) <= MESSAGE_CHARS:
        return line
    head, tail = line[: MESSAGE_CHARS * 3 // 4], line[-(MESSAGE_CHARS // 5) :]
    return f"{head} [... {len(line) - len(head) - len(tail):,} characters cut ...] {tail}"


def closest(name, candidates):
    """The candidate nearest a misspelt ``name`` (difflib's ratio, cutoff 0.6), or None when none
    is near. The one home of pe's "did you mean" suggestions."""
    match = difflib.get_close_matches(str(name), [str(c) for c in candidates], n=1)
    return match[0] if match else None


def did_you_mean(name, candidates, otherwise=""):
    """``"did you mean 'x'?"`` for the candidate nearest ``name``; ``otherwise`` when none is near."""
    match = closest(name, candidates)
    return f"did you mean '{match}'?" if match else otherwise


def suggest(name, choices):
    """The hint for a misspelt name: ``"did you mean 'x'?"``, or the valid names when none is near
    (all of them up to 12)."""
    choices = sorted(set(str(c) for c in choices))
    match = closest(name, choices)
    if match:
        return f"did you mean '{match}'?"
    if len(choices) <= 12:
        return "valid: " + ", ".join(choices)
    return f"valid: {', '.join(choices[:12])}, ... ({len(choices)} in all)"


class NanInfError(OpError):
    """An op wrote NaN or Inf into a float output (check_nan_inf)."""


class FluidUnsupported(NotImplementedError):
    """A Fluid name pe does not implement. ``name`` is the dotted Fluid name."""

    def __init__(self, name, why="pe does not support it yet"):
        super().__init__(f"{name}: {why}")
        self.name = name


def unsupported(name, why="pe does not support it yet"):
    """A stand-in for the Fluid name ``name`` that raises FluidUnsupported when called: a class
    (so scripts may still subclass it) for a capitalized name, else a function. Stand-ins carry
    ``_pe_not_yet = True``."""
    short = name.rsplit(".", 1)[-1]
    doc = f"Not in pe: {why}."
    if short[:1].isupper():

        def __new__(cls, *args, **kwargs):
            raise FluidUnsupported(name, why)

        return type(short, (), {"__new__": __new__, "__doc__": doc, "_pe_not_yet": True, "_pe_why": why})

    def stand_in(*args, **kwargs):
        raise FluidUnsupported(name, why)

    stand_in.__name__ = stand_in.__qualname__ = short
    stand_in.__doc__ = doc
    stand_in._pe_not_yet = True
    stand_in._pe_why = why
    return stand_in


def refuse(namespace, module, names, why):
    """Sets, in ``namespace`` (a module's ``globals()``), a stand-in (``unsupported``) for each of
    ``names`` it does not define yet, named ``module.name`` and saying ``why`` when called."""
    for name in names:
        if name not in namespace:
            namespace[name] = unsupported(f"{module}.{name}", why)


class MissingModule(types.ModuleType):
    """A third-party module a Fluid module imports that is not installed: every public name raises
    FluidUnsupported, saying what to install."""

    def __init__(self, name, why):
        super().__init__(name, why)
        self._pe_why = why

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        raise FluidUnsupported(f"{self.__name__}.{attr}", self._pe_why)


def optional_module(name, package=None):
    """The module ``name`` if it is installed (six, gast, prettytable, ...), else a MissingModule
    saying ``pip install <package>``."""
    try:
        return importlib.import_module(name)
    except ImportError:
        package = package or name.split(".")[0]
        return MissingModule(name, f"the '{package}' package is not installed (pip install {package})")
