"""Scheduling: Executor, ParallelExecutor, scopes. The scopes load with the package (checkpoints read
and write through them); the executors on first use, so that ``pe summary`` and ``pe graph``, which
run no program, load no executor (nor the passes and op families its plans import)."""

from .scope import Scope, global_scope, scope_guard

__all__ = ["Executor", "ParallelExecutor", "Scope", "global_scope", "scope_guard"]


def __getattr__(name):
    if name == "Executor":
        from .executor import Executor as value
    elif name == "ParallelExecutor":
        from .parallel import ParallelExecutor as value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return value
