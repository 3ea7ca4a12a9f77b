"""``paddle.incubate.autograd`` (Paddle 2.6): its primitive-op autograd. ``prim_enabled()`` is False
(pe never decomposes ops, pe_cli/fluid/core_prim.py); the names that would decompose refuse."""

from . import primapi  # noqa: F401
from .primapi import disable_prim, enable_prim, forward_grad, grad, prim_enabled, to_prim

__all__ = ["disable_prim", "enable_prim", "forward_grad", "grad", "prim_enabled", "to_prim"]
