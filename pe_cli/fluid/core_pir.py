"""``paddle.pir`` and ``paddle.base.libpaddle.pir`` (Paddle 2.6): the classes of PIR, Paddle 2.6's
second program representation, which Paddle's tests name in ``isinstance`` checks (``isinstance(x, (Variable, paddle.pir.OpResult))``).
pe has one representation (paddle/pir_utils.py): no object pe makes is one of these, so such a check takes
its old-IR branch, as ``paddle.framework.in_pir_mode()`` (False) says it should."""

__all__ = ["OpResult", "Value", "Program", "Block", "Operation"]


class _PirOnly:
    """A PIR object: pe never makes one."""

    def __init__(self, *args, **kwargs):
        raise TypeError(f"paddle.pir.{type(self).__name__}: pe has no PIR programs (in_pir_mode() is False)")


class OpResult(_PirOnly):
    """A PIR operation's result."""


class Value(_PirOnly):
    """A PIR value."""


class Program(_PirOnly):
    """A PIR program."""


class Block(_PirOnly):
    """A PIR block."""


class Operation(_PirOnly):
    """A PIR operation."""
