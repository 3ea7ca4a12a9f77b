"""``paddle.fluid.compiler``: CompiledProgram and the strategies."""

from ..compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401

__all__ = ["BuildStrategy", "CompiledProgram", "ExecutionStrategy"]
