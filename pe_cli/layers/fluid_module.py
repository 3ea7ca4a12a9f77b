"""Fluid 1.8 groups its layers in submodules (``layers.ops``, ``layers.sequence_lod``,
``layers.metric_op``, ...) that scripts import by name; pe's layers live in modules of its own. A
face module lists Fluid's names and imports each from the family module that defines it (so a search
finds its def); control_flow.py resolves its few here, lazily, from ``pe_cli.layers``."""

import importlib


def resolver(module, names):
    """A module ``__getattr__`` giving ``names`` from pe_cli.layers."""

    def __getattr__(name):
        if name in names:
            return getattr(importlib.import_module("pe_cli.layers"), name)
        raise AttributeError(f"module '{module}' has no attribute '{name}'")

    return __getattr__
