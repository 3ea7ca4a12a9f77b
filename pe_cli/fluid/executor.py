"""``paddle.fluid.executor``: pe's Executor and scopes."""
from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401

__all__ = ["Executor", "global_scope", "scope_guard"]
