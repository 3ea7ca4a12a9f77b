"""``paddle.pir`` (Paddle 2.6): the classes of PIR, its second program representation, which pe has
not (pe_cli/fluid/core_pir.py holds them, as Paddle's core module ``libpaddle.pir`` does)."""

from ..fluid.core_pir import Block, OpResult, Operation, Program, Value  # noqa: F401

__all__ = ["OpResult", "Value", "Program", "Block", "Operation"]
