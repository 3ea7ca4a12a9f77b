"""How the Fluid face says "not in pe": one NotImplementedError naming the Fluid name, and the
reason when there is one (another issue owns it, or pe will never have it). The error and the
stand-ins live in pe_cli/base/errors.py, so lower layers (``fluid.layers`` is pe_cli.layers) use them too:
``refuse(globals(), module, names, why)`` defines a stand-in for each of a module's names pe does not do
(pslib, HDFS, MKLDNN passes, dygraph mode), and ``optional_module(name)`` is a third-party module a
Fluid module imports (six, gast, prettytable), or, where it is not installed, one whose every name says so."""

import importlib
import sys

from ..base.errors import FluidUnsupported, MissingModule, optional_module, refuse, unsupported

__all__ = [
    "FluidUnsupported",
    "MissingModule",
    "optional_module",
    "refuse",
    "unsupported",
    "unsupported_module",
    "user_modules",
    "user_paddle",
]


def unsupported_module(module, why):
    """A module ``__getattr__`` for a whole Fluid module pe does not have: any public name raises."""

    def __getattr__(name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise FluidUnsupported(f"{module}.{name}", why)

    return __getattr__


# Why a name refuses, for the modules of Fluid 1.8.5's wheel that need what this machine or pe lacks.
PSLIB = (
    "Baidu's pslib parameter server (a separate closed build; the paddlepaddle wheel has no pslib either); "
    "pe's parameter servers are fluid.transpiler's and fleet's parameter_server"
)
HDFS = "an HDFS cluster and its hadoop client, which pe does not drive; use local paths (LocalFS)"
MKLDNN = "an MKL-DNN (oneDNN) int8 pass; pe's CPU kernels are numba's, with no MKL-DNN"
NATIVE = "a native part of Fluid's C++ core with no counterpart in pe"
DYGRAPH = (
    "pe runs static graphs only (Program + Executor); dygraph (imperative) mode is not part of it: "
    "build a Program and run it with an Executor"
)


def user_modules(module, names):
    """A module ``__getattr__`` giving the modules a Fluid module holds after ``import paddle`` or
    ``import paddle.compat as cpt`` (``names``: attribute -> module name): the user's ``paddle``, which
    under ``pe fluid`` is pe's paddle face, above this one, so it is looked up by the user's name
    (the import hook resolves it), never imported from here by pe's."""

    def __getattr__(name):
        if name in names and "paddle" in sys.modules:
            return importlib.import_module(names[name])
        raise AttributeError(f"module '{module}' has no attribute '{name}'")

    return __getattr__


def user_paddle(module):
    """``user_modules`` for ``paddle`` alone."""
    return user_modules(module, {"paddle": "paddle"})
