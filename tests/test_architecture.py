"""The architecture, checked: every package of pe_cli stands on one of the floors below (a new package
fails until it is given one), layers import only downwards, packages form no cycle, MPI is loaded only
between processes (pe_cli/distributed), imports inside functions are only the listed lazy loads,
executors only schedule, and files and functions stay small enough to read in one sitting.
docs/ARCHITECTURE.md draws the same floors, in the same order (checked too)."""

import ast
import functools
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pe_cli")

# From the bottom up. A module may import from its own layer's package and from any lower layer;
# packages in one layer may import each other only without a cycle (checked below).
LAYERS = [
    # the floor: errors, dims, dtypes, places, the activation table, SelectedRows, the profiler;
    # imports nothing else of pe
    ("base", ["pe_cli.base"]),
    # the meta home of each op family: shape, geometry and attribute rules that op inference and the
    # kernels of every device apply alike; imports base only
    ("shapes", ["pe_cli.shapes"]),
    # what runs between processes (MPI): the rank guard, collectives between trainer processes, the
    # stall inspector, parameter-server messages, the rendezvous; knows no op, kernel or program
    ("distributed", ["pe_cli.distributed"]),
    # device kernels and device runtimes (threads, memory, collectives): know no op registry
    ("kernels", ["pe_cli.kernels"]),
    # the op registry and the op definitions; finds kernels by the module named at registration
    ("ops", ["pe_cli.ops"]),
    # the IR: Program > Block > Operator, Variable, Parameter, LoDTensor
    ("framework", ["pe_cli.framework"]),
    # training: autodiff, optimizers and their parts, and how parameters are made (initializer,
    # param_attr, regularizer); the averaging optimizers append their few tensor ops themselves
    # (training/tensor_ops.py), so nothing here imports layers
    ("training", ["pe_cli.training"]),
    # building programs: layers (which make parameters through training's initializers); the
    # parameter-server transpiler
    ("layers", ["pe_cli.layers", "pe_cli.transpiler"]),
    # strategies, CompiledProgram (plain data), the multi-device graph
    ("compiler", ["pe_cli.compiler"]),
    # scheduling: Executor, ParallelExecutor, scopes
    ("executor", ["pe_cli.executor"]),
    # checkpoints and inference models; data readers and feeders
    ("io and data", ["pe_cli.io", "pe_cli.data"]),
    # model files and run configs: load, validate, resolve into plain specs
    ("config", ["pe_cli.config"]),
    # runs: build from specs, train, evaluate, run directories
    ("run", ["pe_cli.run", "pe_cli.export"]),
    # the faces: the Fluid API (Fluid 1.x's names and module layout), then the Paddle 2.x face over
    # it (pe_cli.paddle imports pe_cli.fluid, never the reverse), then the command
    ("fluid face", ["pe_cli.fluid"]),
    ("paddle face", ["pe_cli.paddle"]),
    ("command", ["pe_cli.cli", "pe_cli.__main__", "pe_cli"]),
]
PACKAGE = "pe_cli"  # on the command's floor by its own __init__ only; every other name covers its submodules

# The only floor that loads MPI (mpi4py): what runs between processes. The kernels of the
# parameter-server ops reach it through pe_cli.distributed.pserver_link, never mpi4py itself.
MPI_FLOOR = "pe_cli.distributed"

# Imports inside functions, by (importing module, imported module): only loads that would make
# `import pe_cli` or `pe --help` slow (numba, numba.cuda, the CUDA kernels) or that the command
# needs for one subcommand only.
LAZY = {
    # The command shell: each command loads the engine in its body, so that `pe --help` and
    # `pe CMD --help` load click alone (issue 17: under 0.3 s); `pe fluid` alone needs the Fluid face
    "pe_cli.cli.main": (
        "pe_cli.config",
        "pe_cli.run.launch",
        "pe_cli.run.trainer",
        "pe_cli.ops.registry",
        "pe_cli.run.evaluation",
        "pe_cli.run.graphcmd",
        "pe_cli.run.smoke",
        "pe_cli.run.output_paths",
        "pe_cli.base.atomic_file",
        "pe_cli.base.knobs",
        "pe_cli.run.predmetrics",
    ),
    "pe_cli.cli.scripts": (
        "pe_cli.fluid.runner",
        "pe_cli.run.launch_cluster",
        "pe_cli.distributed.rendezvous",
    ),  # pe fluid: a role started on its own
    "pe_cli.cli.tools": (
        "pe_cli.run.summary",
        "pe_cli.config",
        "pe_cli.run.predict",
        "pe_cli.run.predict_stream",
        "pe_cli.run.plot",
        "pe_cli.export",
        "pe_cli.run.inference",
        "pe_cli.run.infer",
        "pe_cli.run.output_paths",
        "pe_cli.run.machine_info",
    ),
    "pe_cli.cli.serve": ("pe_cli.run.serve",),  # uvicorn and Starlette: pe serve alone loads them
    "pe_cli.cli.reference": ("pe_cli.config.errors", "pe_cli.config.registries", "pe_cli.config.describe"),
    "pe_cli.cli.errors": ("pe_cli.config",),
    "pe_cli.cli.options": ("pe_cli.run.thread_count",),
    # the packages' public names: each loads its module on first use (pe summary loads no trainer, no pass)
    "pe_cli.run": (
        "pe_cli.run.build",
        "pe_cli.run.evaluation",
        "pe_cli.run.loop",
        "pe_cli.run.smoke",
        "pe_cli.run.trainer",
    ),
    "pe_cli.compiler": ("pe_cli.compiler.compiled_program", "pe_cli.compiler.graphviz", "pe_cli.compiler.ssa_graph"),
    "pe_cli.executor": ("pe_cli.executor.executor", "pe_cli.executor.parallel"),
}

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60


def _modules():
    for folder, _, files in os.walk(ROOT):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, os.path.dirname(ROOT))[:-3].replace(os.sep, ".")
                yield (rel[: -len(".__init__")] if rel.endswith(".__init__") else rel), path


MODULES = dict(_modules())


def _layer_of(module):
    best, rank = "", None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or (p != PACKAGE and module.startswith(p + "."))) and len(p) > len(best):
                best, rank = p, i
    return rank, best


def _resolve(module, path, node):
    """The pe modules an import statement names (absolute module names)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "pe_cli"]
    base = node.module or ""
    if node.level:
        package = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
        parts = package.split(".")
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
    if base.split(".")[0] != "pe_cli":
        return []
    names = []
    for a in node.names:
        sub = f"{base}.{a.name}"
        names.append(sub if sub in MODULES else base)
    return names


def _import_statements(node, in_function=False):
    """(import node, inside a function?) under ``node``, visiting statements only (imports are statements)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, in_function
        elif isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            yield from _import_statements(child, inner)


@functools.cache
def _tree(module):
    """The parsed source of a pe module (each file parsed once per run)."""
    with open(MODULES[module], encoding="utf-8") as f:
        return ast.parse(f.read(), MODULES[module])


@functools.cache
def _imports():
    """(importer, imported, lazy?) for every import of a pe module in pe_cli/."""
    found = []
    for module, path in MODULES.items():
        tree = _tree(module)
        for node, lazy in _import_statements(tree):
            for target in _resolve(module, path, node):
                found.append((module, target, lazy, node.lineno))
    return found


def _package(module):
    return _layer_of(module)[1] or module


def test_every_module_has_a_layer():
    """Each module of pe_cli is on the floor of its package: a new package (a new folder of pe_cli/)
    has none until LAYERS places it, so its imports are checked from the start."""
    assert [m for m in MODULES if _layer_of(m)[0] is None] == []


def test_every_floor_names_packages_that_exist():
    """LAYERS names only packages (and modules) pe_cli has, each once: no floor is left of a package gone."""
    named = [p for _, prefixes in LAYERS for p in prefixes]
    assert [p for p in named if p not in MODULES] == []
    assert len(named) == len(set(named))


def _drawn_packages():
    """The packages docs/ARCHITECTURE.md's drawing of the floors names at the start of an entry, top down."""
    with open(os.path.join(os.path.dirname(ROOT), "docs", "ARCHITECTURE.md"), encoding="utf-8") as f:
        drawing = f.read().split("```")[1]
    return ["pe_cli." + m.group(1) for m in re.finditer(r"(?m)^.{0,14}pe_cli/(\w+)/", drawing)]


def test_the_drawing_of_the_floors_is_the_one_checked():
    """docs/ARCHITECTURE.md draws every package of pe_cli once, from the top floor down, as LAYERS orders them."""
    drawn = _drawn_packages()
    packages = sorted(p for _, prefixes in LAYERS for p in prefixes if p != PACKAGE and not p.endswith("__main__"))
    assert sorted(drawn) == packages
    floors = [_layer_of(p)[0] for p in drawn]
    assert floors == sorted(floors, reverse=True), [LAYERS[i][0] for i in floors]


def _named_module(call):
    """The module an ``importlib.import_module(...)`` or ``__import__(...)`` call names, as far as its
    source says: a literal name, or the literal start of an f-string up to its last dot
    (``f"pe_cli.kernels.{device}.runtime"`` names pe_cli.kernels); else None."""
    is_import = getattr(call.func, "attr", "") == "import_module" or getattr(call.func, "id", "") == "__import__"
    if not (is_import and call.args):
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        start = str(arg.values[0].value)
        return start.rsplit(".", 1)[0] if "." in start else None
    return None


@functools.cache
def _called_imports():
    """(importer, imported, line) for every ``importlib.import_module`` / ``__import__`` call whose
    source names the module (``_named_module``), of pe or not."""
    found = []
    for module in MODULES:
        for node in ast.walk(_tree(module)):
            if isinstance(node, ast.Call) and (name := _named_module(node)):
                found.append((module, name, node.lineno))
    return found


def _named_pe_imports():
    """(importer, imported, line) for every such call that names a pe module."""
    return [(m, name, line) for m, name, line in _called_imports() if name.split(".")[0] == PACKAGE]


def test_no_module_imports_from_a_layer_above_its_own():
    """Import statements, inside functions too (a lazy load is no exception), and
    ``importlib.import_module`` of a pe module the source names, point down or stay on their floor."""
    bad = []
    literal = [(importer, target, False, line) for importer, target, line in _named_pe_imports()]
    for importer, target, lazy, line in _imports() + literal:
        if _layer_of(target)[0] > _layer_of(importer)[0]:
            bad.append(
                f"{importer}:{line} imports {target} "
                f"({LAYERS[_layer_of(importer)[0]][0]} -> {LAYERS[_layer_of(target)[0]][0]})"
            )
    assert bad == []


def _bound_out_kernels(module, node):
    """Whether every name the import ``node`` of ``module`` binds is read only inside the ``cpu=`` or
    ``cuda=`` argument of a ``Structured(...)`` call: an out-kernel bound by object, nothing else of it used."""
    names = {a.asname or a.name.split(".")[0] for a in node.names}
    tree = _tree(module)
    inside = set()
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Structured":
            for kw in call.keywords:
                if kw.arg in ("cpu", "cuda"):
                    inside.update(id(n) for n in ast.walk(kw.value) if isinstance(n, ast.Name))
    used = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in names]
    return bool(used) and all(id(n) in inside for n in used)


def test_ops_import_no_kernels():
    """Op definitions decide shapes from the rules of pe_cli/shapes, never from a kernel module: an import
    statement of pe_cli.ops names pe_cli.kernels only to bind an op's out-kernels by object, its names read
    nowhere but in ``Structured(cpu=..., cuda=...)`` (issue 95's structured kernels). (The registry binds the
    other ops to their kernels by the module named at registration, ops/define.py's ``importlib.import_module``,
    which this does not count.)"""
    found = [(i, t) for i, t, _, _ in _imports() if i.startswith("pe_cli.ops")]
    assert found, "no import in pe_cli.ops found at all: the check reads the wrong thing"
    bad = []
    for module in [m for m in MODULES if m.startswith("pe_cli.ops")]:
        for node, _ in _import_statements(_tree(module)):
            targets = _resolve(module, MODULES[module], node)
            if any(t.startswith("pe_cli.kernels") for t in targets) and not _bound_out_kernels(module, node):
                bad.append(f"{module}:{node.lineno} imports {targets}")
    assert bad == []


def test_cuda_kernels_import_no_cpu_kernels():
    """What both devices share lies below both (pe_cli/shapes, kernels/common.py, kernels/elements, ...): no
    module of pe_cli.kernels.cuda imports pe_cli.kernels.cpu, by a statement or a named import call. A CUDA
    module that runs an op's CPU kernel on the host names the op in its HOST_OPS, and kernels.kernel_of, above
    both, joins the two."""
    cuda = [(i, t, line) for i, t, _, line in _imports() if i.startswith("pe_cli.kernels.cuda")]
    cuda += [(i, t, line) for i, t, line in _named_pe_imports() if i.startswith("pe_cli.kernels.cuda")]
    assert cuda, "no import in pe_cli.kernels.cuda found at all: the check reads the wrong thing"
    bad = [f"{i}:{line} imports {t}" for i, t, line in cuda if t.startswith("pe_cli.kernels.cpu")]
    assert bad == []


def _mpi_imports():
    """(importer, line) for every import of mpi4py in pe_cli: statements and named import calls."""
    found = [(m, line) for m, name, line in _called_imports() if name.split(".")[0] == "mpi4py"]
    for module in MODULES:
        for node, _ in _import_statements(_tree(module)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if not getattr(node, "level", 0) and any(n.split(".")[0] == "mpi4py" for n in names):
                found.append((module, node.lineno))
    return found


def test_mpi_is_loaded_only_between_processes():
    """mpi4py is imported only on the distributed floor: kernels/ (and every other floor) imports no MPI."""
    found = _mpi_imports()
    assert found, "no import of mpi4py found at all: the check reads the wrong thing"
    bad = [f"{m}:{line} imports mpi4py" for m, line in found if not m.startswith(MPI_FLOOR + ".")]
    assert bad == []


def test_imports_inside_functions_are_only_the_listed_lazy_loads():
    bad = [
        f"{importer}:{line} imports {target} inside a function"
        for importer, target, lazy, line in _imports()
        if lazy and target not in LAZY.get(importer, ())
    ]
    assert bad == []


def test_the_lazy_list_names_imports_that_exist():
    used = {(i, t) for i, t, lazy, _ in _imports() if lazy}
    assert [(i, t) for i, ts in LAZY.items() for t in ts if (i, t) not in used] == []


def _cycles(edges):
    cycles, state = [], {}

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(trail[trail.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return cycles


def test_no_cycle_between_packages():
    edges = {}
    for importer, target, lazy, _ in _imports():
        a, b = _package(importer), _package(target)
        if a != b and not (lazy and target in LAZY.get(importer, ())):
            edges.setdefault(a, set()).add(b)
    cycles = _cycles(edges)
    assert cycles == []


def _module_imports():
    """(importer, imported module) for every module-level import of a pe module, and every
    ``importlib.import_module`` anywhere in a module whose source names a pe module (``_named_module``)."""
    found = [(importer, target) for importer, target, lazy, _ in _imports() if not lazy and target in MODULES]
    return found + [(importer, target) for importer, target, _ in _named_pe_imports() if target in MODULES]


def _with_packages(module):
    """The module and the packages above it: importing it runs their ``__init__`` first."""
    parts = module.split(".")
    return [".".join(parts[:k]) for k in range(len(parts), 1, -1) if ".".join(parts[:k]) in MODULES]


def test_no_cycle_between_modules():
    """No module imports, through any chain, one that imports it back (a package's __init__ gathering
    its own modules is not a circle: it is the package, not one of them). Importing a module runs the
    ``__init__`` of each package above it: an import of ``runtime.loops`` reaches what ``runtime`` imports."""
    edges = {}
    for importer, imported in _module_imports():
        for target in _with_packages(imported):
            # (a module of the importer's own package, or a package above the importer: not a circle)
            related = target.startswith(importer + ".") or importer.startswith(target + ".")
            if importer != target and not related:
                edges.setdefault(importer, set()).add(target)
    cycles = _cycles(edges)
    assert cycles == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_files_are_small_enough_to_read(module):
    with open(MODULES[module], encoding="utf-8") as f:
        lines = f.read().count("\n")
    assert lines <= MAX_FILE_LINES, f"{module} has {lines} lines"


def test_functions_are_small_enough_to_read():
    long = []
    for module, path in MODULES.items():
        tree = _tree(module)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{module}.{node.name} ({n} lines)")
    assert long == []


def _string_constants(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    return {(n.value, n.lineno) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _op_types():
    from pe_cli.ops import registry

    return set(registry.all_op_types())


EXECUTORS = [m for m in MODULES if m.startswith("pe_cli.executor")]
ATTRIBUTE_WORDS = {"seed"}  # op types that are also the name of an attribute (random ops' seed)
# op types of Fluid 1.8 whose names mean something else where they appear: numpy's dtype kinds "fc" (float,
# complex), data preprocessing's "fill" (missing values), the SSA graph's "broadcast" node; and Paddle 2.x's
# op i1 (a Bessel function), numpy's dtype code of int8 in the .mat reader; Paddle 2.x's collective ops reduce
# and all_reduce, which are also the SSA graph's reduce and all-reduce nodes and an MPI process's all-reduce;
# Paddle 2.x's rnn op, also the name of a text feature's recurrent encoder (config/features.py)
OTHER_MEANINGS = {"fc", "fill", "broadcast", "i1", "reduce", "all_reduce", "rnn"}
HOLDER_WORDS = {"feed", "fetch"}  # op types that are also the names of Fluid's feed and fetch holder variables
# Ludwig's config values (optimizers, an activation, a combiner's key, a normalization) that pe_cli/config's
# Ludwig translation (ludwig.py, ludwig_prep.py, ludwig_run.py) reads and refuses by name
LUDWIG_WORDS = {"adam", "sgd", "momentum", "relu", "norm", "log1p"}


def test_executors_name_no_op_type():
    types = _op_types() - ATTRIBUTE_WORDS - OTHER_MEANINGS - HOLDER_WORDS
    bad = [f"{m}:{line} '{s}'" for m in EXECUTORS for s, line in _string_constants(MODULES[m]) if s in types]
    assert bad == []


def test_executors_do_not_branch_on_device_kind():
    bad = [f"{m}:{line} '{s}'" for m in EXECUTORS for s, line in _string_constants(MODULES[m]) if s in ("cpu", "cuda")]
    assert bad == []


def test_op_types_are_named_only_in_the_registry_and_their_own_modules():
    """An op type's name as a string literal belongs to its op module (pe_cli/ops/<m>.py), its
    kernels and the layer that appends it; anywhere else it is a hand list the registry should
    answer (a trait)."""
    types = _op_types()
    allowed = (
        "pe_cli.ops",
        "pe_cli.base.activations",
        "pe_cli.kernels",
        "pe_cli.shapes",
        "pe_cli.export",
        "pe_cli.layers",
        "pe_cli.training",
        "pe_cli.fluid",
        "pe_cli.paddle",
        "pe_cli.transpiler",
    )
    # names that are also ordinary words in configs and commands (one_hot is also a data transform)
    common_words = {
        "mean",
        "scale",
        "sum",
        "concat",
        "reshape",
        "transpose",
        "split",
        "cast",
        "assign",
        "fill_constant",
        "one_hot",
        "shape",
        "log",
        "size",
        "crop",  # the last three: data.preprocessing keys
        "load",  # also fluid.io.load / paddle.static.load, functions of the io modules
        "dot",  # also Graphviz's dot (pe graph's format), Fluid 1.8's op of the inner product
        "mode",  # Paddle 2.x's op (the most frequent value); a config key (checkpoint.keep_best's)
        "accuracy",  # also the top-1 accuracy each evaluation reports per output (<output>_accuracy)
        "save",  # also fluid.save, and the fetch.save key of a run config
        "dropout",  # also a model file's combiner.dropout (and Ludwig's, config/ludwig.py)
    }
    bad = []
    for m, path in MODULES.items():
        if m.startswith(allowed):
            continue
        for s, line in _string_constants(path):
            if m.startswith("pe_cli.config.ludwig") and s in LUDWIG_WORDS:
                continue
            if s in types and s not in common_words | ATTRIBUTE_WORDS | OTHER_MEANINGS | HOLDER_WORDS:
                bad.append(f"{m}:{line} '{s}'")
    assert bad == []


def test_the_map_of_op_families_is_current():
    """docs/ARCHITECTURE.md's map of op families is the one the registry gives (tools/op_families.py),
    and every family has its kernels under the same name on both devices."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "op_families", os.path.join(os.path.dirname(ROOT), "tools", "op_families.py")
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.written() == tool.table(), "run: python tools/op_families.py --write"
    missing = [
        f"kernels/{device}/{family}.py"
        for family in tool.families()
        for device in ("cpu", "cuda")
        if not os.path.exists(os.path.join(ROOT, "kernels", device, f"{family}.py"))
    ]
    assert missing == []


def test_no_module_is_named_for_when_it_was_written():
    bad = [m for m in MODULES if re.search(r"(_extra|_more|_v2|_new|_old|\d)$", m.rsplit(".", 1)[-1])]
    assert bad == []


if __name__ == "__main__":  # a report of every violation: python tests/test_architecture.py
    import sys

    sys.path.insert(0, os.path.dirname(ROOT))
    for name, check in sorted(globals().items()):
        if name.startswith("test_") and callable(check):
            try:
                if name == "test_files_are_small_enough_to_read":
                    for m in sorted(MODULES):
                        try:
                            check(m)
                        except AssertionError as e:
                            print(f"{name}: {str(e).splitlines()[0]}")
                else:
                    check()
            except AssertionError as e:
                right = e.args[0] if e.args else ""
                print(f"{name}:")
                frame = sys.exc_info()[2]
                while frame.tb_next:
                    frame = frame.tb_next
                for key in ("bad", "long", "cycles"):
                    if key in frame.tb_frame.f_locals:
                        for item in frame.tb_frame.f_locals[key]:
                            print(f"    {item}")
