"""The one fallback of paddle.tensor's submodules (math, creation, random, stat): a function of Paddle 2.6's
tensor/<module>.py the pe module does not name (an in-place form, ``add_``) is paddle.tensor's, or paddle's
(``create_parameter``); a name neither has is the AttributeError Python gives."""

import importlib


def module_attribute(module, name):
    for package in ("pe_cli.paddle.tensor", "pe_cli.paddle"):
        found = getattr(importlib.import_module(package), name, None)
        if found is not None:
            return found
    raise AttributeError(f"module {module!r} has no attribute {name!r}")
