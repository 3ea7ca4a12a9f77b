"""``paddle`` in a Python that a program run by ``pe fluid`` starts (this folder's parent is first
on that Python's PYTHONPATH, for ``pe fluid``'s children only): importing it installs ``pe fluid``'s
import hook there and is pe's paddle, so ``paddle.fluid`` and every ``paddle.X`` resolve to pe.

``python -m paddle.X`` imports this first: a module X of pe then runs here as ``__main__`` under its
own name (its relative imports are pe's; run under ``paddle.X`` they would resolve against paddle),
and the process exits with its status, as when runpy runs it."""

import importlib
import importlib.util
import runpy
import sys

from pe_cli.fluid import runner

# ``import paddle`` returns pe's paddle face, which sits above this one (pe_cli.paddle imports
# pe_cli.fluid): this module steps aside and the hook resolves the name, as it does in ``pe fluid``
# itself. Installing the hook imports ``paddle.fluid``, and so ``paddle``; the import system then
# returns what sys.modules holds under this module's name.
del sys.modules[__name__]
runner.install()


def _main_module(argv):
    """The module of ``python -m MODULE`` (or ``-mMODULE``), else None."""
    for i, arg in enumerate(argv[1:], 1):
        if arg == "-m" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("-m") and len(arg) > 2:
            return arg[2:]
        if arg == "-c" or not arg.startswith("-"):
            return None
    return None


def _run_main():
    """Runs pe's module of ``python -m paddle.X`` as ``__main__`` and exits, when X is a module of pe."""
    target = runner.pe_module_for(_main_module(getattr(sys, "orig_argv", [])) or "")
    spec = importlib.util.find_spec(target) if target else None
    if spec is not None and spec.submodule_search_locations is None:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
        sys.exit(0)


if sys.argv[:1] == ["-m"]:  # Python is still locating the module of -m
    _run_main()
