"""Checkpoints (Fluid 1.x ``fluid.io``): save and load the values of a program's variables.

Format, never unpickled: with ``filename=None`` one ``<dirname>/<variable name>.npy`` per variable;
with ``filename`` one ``<dirname>/<filename>`` holding every variable as an ``.npz`` archive keyed by
variable name. Writes are atomic (pe_cli/io/atomic.py).

Loading also reads what Fluid's ``save_vars`` wrote: a file named as the variable (no ``.npy``)
holding one LoDTensor in Fluid's serialization, or a ``filename`` of them end to end by sorted name
(pe_cli/io/fluid_proto.py). Loading reads everything first and checks that each expected variable is there with the program's
shape and dtype; a mismatch is a one-line error naming the file and the variable, and nothing is
loaded. Values go to the current global scope (``fluid.scope_guard`` selects another)."""
import os
import types

import numpy as np

from ..base.errors import PeError
from ..base.npy import read_npy
from ..executor.scope import global_scope
from ..framework import Program, default_main_program
from ..framework.variable import Parameter, Variable
from .atomic import interrupted_hint, write_dir, write_npz
from .fluid_proto import read_lod_tensors, write_lod_tensor

__all__ = ["save_vars", "load_vars", "save_params", "load_params", "save_persistables", "load_persistables",
           "is_parameter", "is_persistable"]

_NOT_SAVED_TYPES = ("feed_minibatch", "fetch_list", "reader", "raw")


def is_parameter(var):
    return isinstance(var, Parameter)


def is_persistable(var):
    return bool(var.persistable) and str(var.type).lower() not in _NOT_SAVED_TYPES and not var.is_data


def as_program(main_program, fn):
    """``main_program`` (default: the default main program; a CompiledProgram's own), checked."""
    program = default_main_program() if main_program is None else main_program
    program = getattr(program, "_program", program)   # a CompiledProgram
    if program is None:
        raise TypeError(f"{fn}: this CompiledProgram was made of a core.Graph and holds no Program; "
                        "pass the Program")
    if not isinstance(program, Program):
        raise TypeError(f"{fn}: main_program must be a Program, got {type(program).__name__}")
    return program


def _select(fn, main_program, vars, predicate):
    """The variables to save or load, by name, in program order, without duplicates."""
    if vars is None:
        program = as_program(main_program, fn)
        chosen = [v for v in program.list_vars() if predicate is None or predicate(v)]
    else:
        program = as_program(main_program, fn) if main_program is not None else None
        chosen = []
        for v in vars:
            if isinstance(v, str):
                if program is None:
                    program = default_main_program()
                try:
                    v = program.global_block().var(v)
                except ValueError:
                    raise PeError(f"{fn}: '{v}' is not a variable of the program") from None
            elif not isinstance(v, Variable):
                raise TypeError(f"{fn}: vars takes Variables or names, got {v!r}")
            chosen.append(v)
    seen, out = set(), []
    for v in chosen:
        if v.name not in seen:
            seen.add(v.name)
            out.append(v)
    return out


def _file_name(name):
    """The file of variable ``name``: the name itself, with '%', '/' and '\\' escaped, plus '.npy'."""
    if name in (".", ".."):
        name = name.replace(".", "%2E")
    return name.replace("%", "%25").replace("/", "%2F").replace("\\", "%5C") + ".npy"


def variable_values(fn, vars, scope):
    """{name: host array} of ``vars`` in ``scope``; a variable without a value is an error naming it."""
    arrays = {}
    for v in vars:
        array = scope.get_array(v.name)
        if array is None:
            raise PeError(f"{fn}: variable '{v.name}' has no value in the scope: run the startup program "
                          f"(and the program that computes it) before saving")
        array = np.asarray(array.copy_to_host() if hasattr(array, "copy_to_host") else array)   # GPU scopes
        if array.dtype == object:
            raise PeError(f"{fn}: variable '{v.name}' holds Python objects, which checkpoints do not store")
        arrays[v.name] = array
    return arrays


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Saves ``vars`` (or the variables of ``main_program`` for which ``predicate`` is true) from
    the global scope to ``dirname``: one ``.npy`` per variable, or the single ``.npz`` file
    ``filename`` inside ``dirname``."""
    fn = "save_vars"
    if not isinstance(dirname, (str, os.PathLike)):
        raise TypeError(f"{fn}: dirname must be a path, got {dirname!r}")
    dirname = os.fspath(dirname)
    chosen = _select(fn, main_program, vars, predicate)
    arrays = variable_values(fn, chosen, global_scope())
    if filename is None:
        files = {}
        for name, array in arrays.items():
            fname = _file_name(name)
            if fname in files:
                raise PeError(f"{fn}: variables '{name}' and another map to the same file '{fname}'")
            files[fname] = array
        write_dir(dirname, files)
    else:
        filename = os.fspath(filename)
        if os.path.basename(filename) != filename or filename in ("", ".", ".."):
            raise PeError(f"{fn}: filename must be a file name inside dirname, got {filename!r}")
        write_npz(os.path.join(dirname, filename), arrays)


def fluid_files(fn, arrays, filename=None):
    """{file name: bytes} of ``arrays`` (name -> array) in Fluid's LoDTensor serialization, as Fluid's
    ``save_vars`` writes them: a file named as each variable, or the one file ``filename`` holding
    them all end to end in the order of their sorted names (``save_combine``)."""
    if filename is not None:     # no file for no variables, as Paddle writes none
        return {filename: b"".join(write_lod_tensor(arrays[n]) for n in sorted(arrays))} if arrays else {}
    for name in arrays:
        if "/" in name or "\\" in name or name in (".", ".."):
            raise PeError(f"{fn}: variable '{name}' cannot be a file name of Fluid's format; "
                          f"give params_filename to save every parameter in one file")
    return {name: write_lod_tensor(array) for name, array in arrays.items()}


def save_params(executor, dirname, main_program=None, filename=None):
    """Saves every parameter of ``main_program`` (default: the default main program)."""
    save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def save_persistables(executor, dirname, main_program=None, filename=None):
    """Saves every persistable variable (parameters, optimizer state, learning-rate counters)."""
    save_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def check_value(fn, var, array, where):
    """``array`` checked against ``var``'s shape and dtype, and returned; a 0-d value for a [1]
    variable comes back as [1] (Paddle 2.x saves its scalars, a learning rate, as 0-d tensors)."""
    if var.shape is not None:
        want = tuple(var.shape)
        if array.ndim == 0 and want == (1,):
            array = array.reshape(1)
        if len(want) != array.ndim or any(w >= 0 and w != s for w, s in zip(want, array.shape)):
            raise PeError(f"{fn}: '{var.name}' in {where} has shape {list(array.shape)}, "
                          f"the program expects {list(want)}")
    if var.dtype is not None and np.dtype(var.dtype) != array.dtype:
        raise PeError(f"{fn}: '{var.name}' in {where} is {array.dtype}, the program expects {var.dtype}")
    return array


def _read_dir(fn, dirname, vars):
    if not os.path.isdir(dirname):
        raise PeError(f"{fn}: checkpoint directory '{dirname}' does not exist{interrupted_hint(dirname)}")
    arrays = {}
    for v in vars:
        path = os.path.join(dirname, _file_name(v.name))
        fluid_path = os.path.join(dirname, v.name)
        if _newer(fluid_path, path) and "/" not in v.name and v.name not in (".", ".."):
            arrays[v.name] = _read_fluid(fn, fluid_path, [v])[v.name]     # saved by Fluid's save_vars
            continue
        if not os.path.lexists(path):
            raise PeError(f"{fn}: '{path}' is missing (nor is there Fluid's file '{v.name}'): the checkpoint "
                          f"has no variable '{v.name}'")
        try:
            array = read_npy(path)      # header checked against the file's size and memory first; never unpickled
        except (PeError, OSError) as e:
            raise PeError(f"{fn}: variable '{v.name}': {e}") from None
        array = check_value(fn, v, array, f"'{path}'")
        arrays[v.name] = array
    return arrays


def _newer(path, other):
    """True when the file ``path`` exists and ``other`` does not or is older: of a variable's ``.npy``
    file and its Fluid file, the one saved last is read."""
    if not os.path.isfile(path):
        return False
    return not os.path.isfile(other) or os.stat(other).st_mtime_ns < os.stat(path).st_mtime_ns


def _read_fluid(fn, path, vars):
    """The variables ``vars`` from a file of Fluid's LoDTensors (one, or several end to end in the
    order of their sorted names: save_combine), checked."""
    with open(path, "rb") as f:
        return fluid_arrays(fn, f.read(), f"'{path}'", vars)


def fluid_arrays(fn, data, where, vars):
    """The variables ``vars`` from bytes of Fluid's LoDTensors end to end in the order of their
    sorted names, each checked against its variable."""
    tensors = read_lod_tensors(data, where, count=len(vars))
    return {v.name: check_value(fn, v, array, where)
            for v, (array, _) in zip(sorted(vars, key=lambda v: v.name), tensors)}


def _read_npz(fn, path, vars):
    if not os.path.isfile(path):
        raise PeError(f"{fn}: checkpoint file '{path}' does not exist")
    with open(path, "rb") as f:
        if f.read(4) == b"\0\0\0\0":    # a LoDTensor's version, where a zip archive starts "PK": save_combine
            return _read_fluid(fn, path, vars)
    arrays = {}
    try:
        with np.load(path, allow_pickle=False) as npz:
            if not isinstance(npz, np.lib.npyio.NpzFile):
                raise ValueError("not an .npz archive")
            names = set(npz.files)
            for v in vars:
                if v.name not in names:
                    raise PeError(f"{fn}: '{path}' has no variable '{v.name}'")
                try:
                    array = npz[v.name]
                except Exception as e:
                    raise PeError(f"{fn}: variable '{v.name}' in '{path}' is unreadable: "
                                  f"{type(e).__name__}: {e}") from None
                array = check_value(fn, v, array, f"'{path}'")
                arrays[v.name] = array
    except PeError:
        raise
    except Exception as e:
        raise PeError(f"{fn}: '{path}' is not a readable .npz checkpoint: {type(e).__name__}: {e}") from None
    return arrays


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Loads ``vars`` (or the variables of ``main_program`` for which ``predicate`` is true) into
    the global scope from what ``save_vars`` wrote. All are read and checked before any is set."""
    fn = "load_vars"
    if not isinstance(dirname, (str, os.PathLike)):
        raise TypeError(f"{fn}: dirname must be a path, got {dirname!r}")
    dirname = os.fspath(dirname)
    chosen = _select(fn, main_program, vars, predicate)
    if not chosen:
        return
    if filename is None:
        arrays = _read_dir(fn, dirname, chosen)
    else:
        arrays = _read_npz(fn, os.path.join(dirname, os.fspath(filename)), chosen)
    scope = global_scope()
    for name, array in arrays.items():
        scope.set_array(name, array)


def load_params(executor, dirname, main_program=None, filename=None):
    load_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def load_persistables(executor, dirname, main_program=None, filename=None):
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def _var_name(fname):
    """The variable name of a ``.npy`` file name (``_file_name`` undone)."""
    name = fname[:-len(".npy")]
    for code, char in (("%2F", "/"), ("%5C", "\\"), ("%2E", "."), ("%25", "%")):
        name = name.replace(code, char)
    return name


def read_saved(fn, dirname, names=None, filename=None):
    """The arrays (name -> array) that ``save_vars`` wrote to ``dirname`` (or to its archive
    ``filename``), without a program: the variables ``names``, or with ``names=None`` every ``.npy``
    file of ``dirname``."""
    if filename is None and names is None:
        if not os.path.isdir(dirname):
            raise PeError(f"{fn}: checkpoint directory '{dirname}' does not exist{interrupted_hint(dirname)}")
        names = [_var_name(f) for f in sorted(os.listdir(dirname)) if f.endswith(".npy")]
    wanted = [types.SimpleNamespace(name=n, shape=None, dtype=None) for n in names]   # no checks
    if filename is None:
        return _read_dir(fn, dirname, wanted)
    return _read_npz(fn, os.path.join(dirname, filename), wanted)
