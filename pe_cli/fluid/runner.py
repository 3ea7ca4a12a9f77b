"""``pe fluid SCRIPT.py [ARGS]``: runs an unchanged Fluid 1.x script on pe.

For this process only, an import hook (a ``sys.meta_path`` finder) makes ``paddle`` resolve to
pe_cli.paddle and ``paddle.fluid`` to pe_cli.fluid; importing pe never installs it. The processes the
script starts inherit a PYTHONPATH whose first folder installs the same hook in a child ``python``
that imports ``paddle`` (pe_cli/fluid/subprocess_paddle). The script runs
as ``__main__`` with its own directory first on ``sys.path``, as ``python SCRIPT.py`` would. When it
reaches a Fluid name pe lacks, one line names it, and one of pe's own errors (a PeError: a bad
file, shapes that cannot work) is one line too (the traceback follows under ``PE_DEBUG=1``).

This module imports no pe module at load time but the table of Paddle 2.6's module paths
(paddle2_modules.py; the targets are imported by name when the script asks), so ``pe --help`` stays fast.
"""

import ast
import importlib
import importlib.abc
import importlib.util
import os
import re
import runpy
import sys
import traceback

from .paddle2_modules import MODULES as PADDLE2_MODULES, PACKAGES as PADDLE2_PACKAGES, PREFIXES as PADDLE2_PREFIXES

# Fluid module -> pe module, for names that do not follow the paddle.X -> pe_cli.paddle.X and
# paddle.fluid.X -> pe_cli.fluid.X rules.
SPECIAL = {
    "paddle": "pe_cli.paddle",
    "paddle.fluid": "pe_cli.fluid",
    "paddle.fluid.layers": "pe_cli.layers",
    "paddle.fluid.layers.device": "pe_cli.fluid.layers_device",
    # submodules of fluid.layers (pe_cli.layers) whose names need the Fluid face above it (core)
    "paddle.fluid.layers.math_op_patch": "pe_cli.fluid.layers_math_op_patch",
    "paddle.fluid.layers.layer_function_generator": "pe_cli.fluid.layer_function_generator",
    "paddle.fluid.core_avx": "pe_cli.fluid.core",  # Fluid's core is core_avx (or core_noavx) itself
    "paddle.version": "pe_cli.fluid.version",  # the paddle face sits above the fluid face, which reads it
    # pe's module names never end in a number (tests/test_architecture.py): Fluid's datasets that do
    "paddle.dataset.conll05": "pe_cli.paddle.dataset.conll_srl",
    "paddle.dataset.wmt14": "pe_cli.paddle.dataset.wmt_fr_en",
    "paddle.dataset.wmt16": "pe_cli.paddle.dataset.wmt_multi30k",
    "paddle.dataset.mq2007": "pe_cli.paddle.dataset.letor",
    "paddle.dataset.voc2012": "pe_cli.paddle.dataset.voc_segmentation",
    "paddle.fluid.proto.framework_pb2": "pe_cli.fluid.proto.framework_messages",
    "paddle.fluid.incubate.fleet.parameter_server.pslib.ps_pb2": "pe_cli.fluid.incubate.fleet.parameter_server.pslib.ps_messages",
    "paddle.fluid.proto.profiler.profiler_pb2": "pe_cli.fluid.proto.profiler.messages",
    "paddle.base": "pe_cli.fluid",  # Paddle 2.6's name for paddle.fluid
    "paddle.base.libpaddle": "pe_cli.fluid.core",  # Paddle 2.6's name for Fluid's core module
    "paddle._C_ops": "pe_cli.paddle.c_ops",  # pe's module names start with no underscore
}


def pe_module_for(fullname):
    """The pe module a ``paddle...`` module name resolves to (None for names outside paddle)."""
    if fullname in SPECIAL:
        return SPECIAL[fullname]
    if fullname in PADDLE2_MODULES:
        return PADDLE2_MODULES[fullname]
    for prefix, pe_prefix in PADDLE2_PREFIXES.items():
        if fullname.startswith(prefix):
            return pe_prefix + fullname[len(prefix) :]
    if fullname.startswith("paddle.base."):  # Paddle 2.6's paddle.base.X is Fluid's paddle.fluid.X
        return pe_module_for("paddle.fluid." + fullname[len("paddle.base.") :])
    if fullname.startswith("paddle.fluid.layers."):
        return "pe_cli.layers." + fullname[len("paddle.fluid.layers.") :]
    if fullname.startswith("paddle.fluid."):
        return "pe_cli.fluid." + fullname[len("paddle.fluid.") :]
    if fullname.startswith("paddle."):
        return "pe_cli.paddle." + fullname[len("paddle.") :]
    return None


def fluid_name_for(pe_module):
    """The Fluid spelling of a pe module name, for messages."""
    for fluid, pe in sorted(SPECIAL.items(), key=lambda kv: -len(kv[1])):
        if pe_module == pe or pe_module.startswith(pe + "."):
            return fluid + pe_module[len(pe) :]
    return pe_module.replace("pe_cli.", "paddle.fluid.", 1)


class _AliasLoader(importlib.abc.Loader):
    """Loads a ``paddle...`` name as the already importable pe module (the same module object)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.own_spec = module.__spec__
        if spec.name in PADDLE2_PACKAGES and not hasattr(module, "__path__"):
            module.__path__ = []  # a package in Paddle: its submodules are found by the hook
        return module

    def exec_module(self, module):
        module.__spec__ = self.own_spec  # the import system stamped the alias's spec on it


class FluidFinder(importlib.abc.MetaPathFinder):
    """Resolves ``paddle`` and its submodules to pe's modules."""

    def find_spec(self, fullname, path=None, target=None):
        pe_name = pe_module_for(fullname)
        if pe_name is None or importlib.util.find_spec(pe_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(pe_name))


def install():
    """Installs the hook (once), gives numpy and collections back the names Fluid programs use
    (pe_cli/fluid/legacy_names.py) and imports ``paddle.fluid`` (and ``paddle.base``, Paddle 2.6's name for
    it) so each is an attribute of ``paddle``."""
    if not any(isinstance(f, FluidFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, FluidFinder())
    importlib.import_module("pe_cli.fluid.legacy_names").install()
    importlib.import_module("paddle.fluid")
    importlib.import_module("paddle.base")  # Paddle 2.6's ``from paddle import base``
    _register_loaded()
    _register_paddle2()


def _register_loaded():
    """Registers every pe module already loaded under its paddle name. A package's attribute may be
    a function of a submodule's name (``fluid.data``, ``layers.rnn``); importing the submodule by
    its paddle name through the hook would set the attribute to the module, where in Fluid the
    submodule is loaded already and the import leaves the attribute alone. Registered, so is pe's."""
    for name, module in list(sys.modules.items()):
        alias = fluid_name_for(name)
        if (
            module is not None
            and name.startswith(("pe_cli.fluid.", "pe_cli.paddle.", "pe_cli.layers."))
            and pe_module_for(alias) == name
            and alias not in sys.modules
        ):
            sys.modules[alias] = module
            parent, _, child = alias.rpartition(".")  # a submodule is its package's attribute
            if parent in sys.modules and not hasattr(sys.modules[parent], child):
                setattr(sys.modules[parent], child, module)


def _register_paddle2():
    """Paddle 2.6's module paths onto pe modules already loaded where the import system would spoil
    the parent: a submodule named as a function or class of its package (``paddle.tensor.einsum``,
    ``paddle.nn.initializer.Bilinear``) would replace it there when imported; in Paddle the package
    imports the submodule first and binds the name after. Paddle's packages that are plain modules
    in pe get a ``__path__`` so their submodules resolve."""
    for name in PADDLE2_PACKAGES:
        module = sys.modules.get(name)
        if module is not None and not hasattr(module, "__path__"):
            module.__path__ = []
    for alias, target in PADDLE2_MODULES.items():
        parent, _, child = alias.rpartition(".")
        held = getattr(sys.modules.get(parent), child, None)
        if alias not in sys.modules and target in sys.modules and held is not None and not isinstance(held, type(sys)):
            sys.modules[alias] = sys.modules[target]


def export_to_children():
    """Puts pe_cli/fluid/subprocess_paddle first on PYTHONPATH in this process's environment, which
    only the processes it starts inherit: a ``python`` the program starts imports pe as ``paddle``
    too (Paddle's tests run ``python -c "import paddle.fluid"``, ``python -m paddle.fluid.reader``)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "subprocess_paddle")
    entries = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != folder]
    os.environ["PYTHONPATH"] = os.pathsep.join([folder] + entries)


def unsupported_name(exc):
    """The Fluid name an exception says pe lacks, or None when it is some other error."""
    unsupported = sys.modules.get("pe_cli.fluid.unsupported")
    if unsupported is not None and isinstance(exc, unsupported.FluidUnsupported):
        return str(exc)
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] in ("paddle", "pe_cli"):
        return f"module {fluid_name_for(exc.name) if exc.name.startswith('pe_cli') else exc.name}"
    if isinstance(exc, ImportError) and (exc.name or "").startswith("pe_cli"):
        match = re.search(r"cannot import name '([^']+)'", str(exc))
        if match:
            return f"{fluid_name_for(exc.name)}.{match.group(1)}"
    if isinstance(exc, AttributeError) and type(getattr(exc, "obj", None)).__name__ == "module":
        module = exc.obj.__name__
        if module.startswith("pe_cli"):
            return f"{fluid_name_for(module)}.{exc.name}"
    return None


def _script_line(tb, script):
    line = None
    for frame in traceback.extract_tb(tb):
        if os.path.abspath(frame.filename) == script:
            line = frame.lineno
    return line


def is_paddle2_program(source):
    """Whether a script is a Paddle 2.x program, which sees Paddle 2.6.2's version (pe_cli/fluid/version.py): it
    names ``enable_static`` (no Fluid 1.x program can call it), or it imports ``paddle`` or a module of it
    and never ``paddle.fluid`` (a Fluid 1.x program imports ``paddle.fluid``, often ``paddle`` beside it for
    ``paddle.batch`` and ``paddle.dataset``). A script Python cannot parse: False (running it fails)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    paddle, fluid = False, False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "enable_static":
            return True
        if isinstance(node, ast.Name) and node.id == "enable_static":
            return True
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        names = [n for n in names if n == "paddle" or n.startswith("paddle.")]
        paddle = paddle or bool(names)
        fluid = fluid or any(n == "paddle.fluid" or n.startswith("paddle.fluid.") for n in names)
    return paddle and not fluid


def run_script(script, args=()):
    """Runs ``script`` with ``args`` as its argv; returns the process exit status."""
    script = os.path.abspath(script)
    if not os.path.isfile(script):
        print(f"pe fluid: {script}: no such file", file=sys.stderr)
        return 2
    install()
    with open(script, "rb") as f:
        importlib.import_module("pe_cli.fluid.version").follow(is_paddle2_program(f.read()))
    export_to_children()
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(script))
    return _run(lambda: runpy.run_path(script, run_name="__main__"), script)


def run_module(module, args=()):
    """``pe fluid -m MODULE [ARGS]``: runs a module (``paddle.distributed.launch``, or one of the
    user's on the current directory) as ``__main__``, as ``python -m`` does; returns the exit status."""
    install()
    export_to_children()
    sys.path.insert(0, os.getcwd())
    target = pe_module_for(module) or module
    try:
        spec = importlib.util.find_spec(target)
    except ModuleNotFoundError:
        spec = None
    if spec is None:
        print(f"pe fluid: no module named {module}", file=sys.stderr)
        return 2
    sys.argv = [spec.origin or module, *args]
    return _run(lambda: runpy.run_module(target, run_name="__main__", alter_sys=True), spec.origin or "")


def _run(call, script):
    """Runs ``call`` (the program); its SystemExit is the status, its error one line where it is a
    Fluid name pe lacks or one of pe's own errors (the traceback under PE_DEBUG=1)."""
    try:
        call()
    except SystemExit as e:
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)  # sys.exit("message"): Python prints it, so does pe fluid
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception as e:  # noqa: BLE001 -- the script's error: a line for pe's gaps and pe's own
        name = unsupported_name(e)  # one-line errors (a bad file, a bad shape), else the traceback
        errors = sys.modules.get("pe_cli.base.errors")
        own = errors is not None and isinstance(e, errors.PeError)
        if (name is None and not own) or os.environ.get("PE_DEBUG") == "1":
            traceback.print_exc()
        if name is not None or own:
            line = _script_line(e.__traceback__, script)
            where = f"{os.path.basename(script)}:{line}" if line else os.path.basename(script)
            said = f"not supported by pe: {name}" if name is not None else f"error: {e}"
            print(
                errors.shortened(f"pe fluid: {where}: {said}") if errors else f"pe fluid: {where}: {said}",
                file=sys.stderr,
            )
        return 1
    return 0
