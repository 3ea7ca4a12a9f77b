"""Checkpoints (Fluid 1.x ``fluid.io``): save and load the values of a program's variables.

``save_vars`` and its shorthands write Fluid 1.8's files (checkpoint_files.py): one per variable
named as it (subdirectories for names with '/'), or all in one ``filename`` by sorted name, or those
bytes in memory; Fluid 1.8 loads them, and they are Fluid's own bytes for the same values. Writes
are atomic (pe_cli/io/atomic.py). ``save_npy_persistables`` writes pe's own format (one ``.npy``
per variable), what pe's run directories hold.

Loading reads Fluid's files and pe's earlier ``.npy``/``.npz`` ones; it reads everything first and
checks that each expected variable is there with the program's shape and dtype; a mismatch is a
one-line error naming the file and the variable, and nothing is loaded. Values (with their LoD) go
to the current global scope (``fluid.scope_guard`` selects another)."""

import os
import types
import warnings

import numpy as np

from ..base.errors import PeError
from ..base.limits import refuse_special
from ..executor.scope import global_scope
from ..framework import Program, default_main_program
from ..framework.variable import Parameter, Variable
from ..base.atomic_file import write_file
from .atomic import interrupted_hint, write_dir
from .checkpoint_files import (
    check_value as check_value,
    combined_values,
    file_name,
    fluid_files,
    read_combined,
    read_dir,  # noqa: F401
    saved_names,
    tensor_bytes,
)

__all__ = [
    "save_vars",
    "load_vars",
    "save_params",
    "load_params",
    "save_persistables",
    "load_persistables",
    "is_parameter",
    "is_persistable",
    "save_npy_persistables",
]

_NOT_SAVED_TYPES = ("feed_minibatch", "fetch_list", "reader", "raw")


def is_parameter(var):
    return isinstance(var, Parameter)


def is_persistable(var):
    return bool(var.persistable) and str(var.type).lower() not in _NOT_SAVED_TYPES and not var.is_data


def as_program(main_program, fn):
    """``main_program`` (default: the default main program; a CompiledProgram's own), checked."""
    program = default_main_program() if main_program is None else main_program
    program = getattr(program, "_program", program)  # a CompiledProgram
    if program is None:
        raise TypeError(f"{fn}: this CompiledProgram was made of a core.Graph and holds no Program; pass the Program")
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


def variable_values(fn, vars, scope):
    """{name: host array} of ``vars`` in ``scope``; a variable without a value is an error naming it."""
    arrays = {}
    for v in vars:
        array = _scope_value(fn, v, scope)
        array = np.asarray(array.copy_to_host() if hasattr(array, "copy_to_host") else array)  # GPU scopes
        if array.dtype == object:
            raise PeError(f"{fn}: variable '{v.name}' holds Python objects, which checkpoints do not store")
        arrays[v.name] = array
    return arrays


def _scope_value(fn, var, scope):
    array = scope.get_array(var.name)
    if array is None:
        raise PeError(
            f"{fn}: variable '{var.name}' has no value in the scope: run the startup program "
            f"(and the program that computes it) before saving"
        )
    return array


def variable_tensors(fn, vars, scope):
    """{name: (Fluid's bytes of its value with its LoD, True for a LoDTensor)} of ``vars`` in ``scope``."""
    out = {}
    for v in vars:
        value = _scope_value(fn, v, scope)
        holder = scope.find_var(v.name)
        out[v.name] = tensor_bytes(fn, v, value, getattr(holder.tensor, "_lod", None))
    return out


def _check_dirname(fn, dirname, filename):
    if dirname is None and filename is None:
        return None
    if not isinstance(dirname, (str, os.PathLike)):
        raise TypeError(f"{fn}: dirname must be a path, got {dirname!r}")
    return os.path.normpath(os.fspath(dirname))


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Saves ``vars`` (or the variables of ``main_program`` for which ``predicate`` is true) from
    the global scope in Fluid's files (checkpoint_files.py): one per variable in ``dirname``, or all
    in ``dirname/filename``; with neither ``dirname`` nor ``filename``, returns those bytes."""
    fn = "save_vars"
    dirname = _check_dirname(fn, dirname, filename)
    chosen = [v for v in _select(fn, main_program, vars, predicate) if str(v.type).lower() != "raw"]
    if not chosen:
        warnings.warn("no variable in your model, please ensure there are any variables in your model to save")
        return None
    tensors = variable_tensors(fn, chosen, global_scope())
    if dirname is None:  # save_to_memory
        return fluid_files(fn, tensors, "memory").get("memory", b"")
    if filename is None:
        write_dir(dirname, fluid_files(fn, tensors))
        return None
    filename = os.fspath(filename)
    path = os.path.normpath(os.path.join(dirname, filename))
    if filename in ("", ".", "..") or not path.startswith(os.path.join(dirname, "")):
        raise PeError(f"{fn}: filename must name a file inside dirname, got {filename!r}")
    data = fluid_files(fn, tensors, filename).get(filename)
    if data is not None:
        write_file(path, lambda f: f.write(data))
    return None


def save_npy_persistables(executor, dirname, main_program=None, extra=None, seal=None):
    """Saves every persistable variable as pe's own checkpoint format: one ``.npy`` per variable in
    ``dirname`` (what pe's run directories hold, ``ckpt/step-N/``; the Fluid API writes Fluid's),
    with the files ``extra`` ({name: bytes}) beside them, sealed by ``seal`` (atomic.write_dir).
    Returns {file name: Written}."""
    fn = "save_persistables"
    chosen = _select(fn, main_program, None, is_persistable)
    files = {}
    for name, array in variable_values(fn, chosen, global_scope()).items():
        fname = file_name(name)
        if fname in files:
            raise PeError(f"{fn}: variables '{name}' and another map to the same file '{fname}'")
        files[fname] = array
    for fname, data in (extra or {}).items():
        if fname in files:
            raise PeError(f"{fn}: a variable maps to the file '{fname}' the checkpoint keeps for itself")
        files[fname] = data
    return write_dir(os.fspath(dirname), files, seal)


def save_params(executor, dirname, main_program=None, filename=None):
    """Saves every parameter of ``main_program`` (default: the default main program)."""
    return save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def save_persistables(executor, dirname, main_program=None, filename=None):
    """Saves every persistable variable (parameters, optimizer state, learning-rate counters)."""
    return save_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Loads ``vars`` (or the variables of ``main_program`` for which ``predicate`` is true) into
    the global scope from what ``save_vars`` wrote (with ``dirname`` None: from the bytes
    ``filename``). All are read and checked before any is set."""
    fn = "load_vars"
    if dirname is not None and not isinstance(dirname, (str, os.PathLike)):
        raise TypeError(f"{fn}: dirname must be a path, got {dirname!r}")
    chosen = [v for v in _select(fn, main_program, vars, predicate) if str(v.type).lower() != "raw"]
    if not chosen:
        return
    if dirname is None:  # model_from_memory: filename holds the bytes
        if not isinstance(filename, (bytes, bytearray)):
            raise ValueError("The directory path and params cannot be None at the same time.")
        values = combined_values(fn, bytes(filename), "the bytes given", chosen)
    elif filename is None:
        values = read_dir(fn, os.fspath(dirname), chosen)
    else:
        values = read_combined(fn, os.path.join(os.fspath(dirname), os.fspath(filename)), chosen)
    scope = global_scope()
    for name, (value, lod) in values.items():
        scope.set_array(name, value, lod)


def load_params(executor, dirname, main_program=None, filename=None):
    load_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def load_persistables(executor, dirname, main_program=None, filename=None):
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def read_saved(fn, dirname, names=None, filename=None):
    """The arrays (name -> array) that ``save_vars`` wrote to ``dirname`` (or to its file
    ``filename``), without a program: the variables ``names``, or with ``names=None`` every file of
    ``dirname`` (checkpoint_files.saved_names)."""
    if filename is None and names is None:
        refuse_special(dirname, "checkpoint directory")
        if not os.path.isdir(dirname):
            raise PeError(f"{fn}: checkpoint directory '{dirname}' does not exist{interrupted_hint(dirname)}")
        names = list(saved_names(dirname))
        if not names:
            raise PeError(
                f"{fn}: checkpoint directory '{dirname}' holds no saved variable, so there is nothing to "
                f"load; give the directory save_vars / save_persistables wrote"
            )
    wanted = [types.SimpleNamespace(name=n, shape=None, dtype=None) for n in names]  # no checks
    if filename is None:
        values = read_dir(fn, dirname, wanted)
    else:
        values = read_combined(fn, os.path.join(dirname, filename), wanted)
    return {name: value for name, (value, _) in values.items()}
