from .executor import Executor
from .parallel import ParallelExecutor
from .scope import Scope, global_scope, scope_guard

__all__ = ["Executor", "ParallelExecutor", "Scope", "global_scope", "scope_guard"]
