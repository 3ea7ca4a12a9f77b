"""``paddle.fluid.parallel_executor``: Fluid's ParallelExecutor, pe's (pe_cli/executor/parallel.py)."""

from ..executor.parallel import ParallelExecutor  # noqa: F401

__all__ = ["ParallelExecutor"]
