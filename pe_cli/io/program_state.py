"""Fluid 1.8's ``fluid.save`` / ``fluid.load`` / ``load_program_state`` / ``set_program_state``.

``save(program, model_path)`` writes ``model_path.pdparams`` (the parameters), ``.pdopt`` (the other
persistable variables: optimizer moments, beta powers, learning rates, counters) as Fluid 1.8 writes
them (pdparams_write.py), and ``.pdmodel``: the whole program as Fluid's ProgramDesc
(pe_cli/framework/fluid_model_write.py). Each file is written atomically. Loading parses the files without unpickling (pdparams.py), checks
every variable's presence, shape and dtype first, and only then sets the values in the global scope,
so a bad file changes nothing. As in Fluid, when ``model_path.pdparams`` is absent ``load`` and
``load_program_state`` read what ``save_vars`` / ``save_params`` / ``save_persistables`` wrote."""

import os
import warnings

import numpy as np

from ..base.errors import ArgumentAssertionError, ArgumentValueError, PeError
from ..base.limits import refuse_special
from ..executor.scope import global_scope
from .atomic import write_file
from .checkpoint import (
    as_program,
    check_value,
    is_parameter,
    is_persistable,
    load_vars,
    read_saved,
    saved_names,
    variable_values,
)
from ..framework.fluid_model_write import whole_program_desc
from .pdparams import read_state
from .pdparams_write import write_state
from .state_checks import wrapped_hint

__all__ = [
    "save",
    "load",
    "load_program_state",
    "set_program_state",
    "get_program_parameter",
    "get_program_persistable_vars",
    "is_belong_to_optimizer",
]


def is_belong_to_optimizer(var):
    """A persistable variable that is not a parameter nor fed: what ``.pdopt`` holds."""
    return not is_parameter(var) and not var.need_check_feed and is_persistable(var)


def _unique(program, predicate):
    seen, out = set(), []
    for v in program.list_vars():
        if predicate(v) and v.name not in seen:
            seen.add(v.name)
            out.append(v)
    return out


def get_program_parameter(program):
    """The parameters of ``program``."""
    return _unique(as_program(program, "get_program_parameter"), is_parameter)


def get_program_persistable_vars(program):
    """The persistable variables of ``program``."""
    return _unique(as_program(program, "get_program_persistable_vars"), is_persistable)


def _prefix(fn, model_path):
    if not isinstance(model_path, (str, os.PathLike)):
        raise TypeError(f"{fn}: model_path must be a path, got {model_path!r}")
    prefix = os.fspath(model_path)
    for ext in (".pdparams", ".pdopt", ".pdmodel"):
        if prefix.endswith(ext):
            return prefix[: -len(ext)]
    return prefix


def save(program, model_path, *, protocol=4, **configs):
    """Writes ``model_path.pdparams``, ``.pdopt`` and ``.pdmodel`` from the global scope. ``protocol``
    (Paddle 2.x: the pickle protocol, 2 to 4) is checked; pe writes its files without pickle, the same
    for every protocol. ``configs`` takes nothing pe knows."""
    fn = "fluid.save"
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        raise ArgumentValueError(f"{fn}: The 'protocol' MUST be `int`, but received {type(protocol).__name__}")
    if not 1 < protocol < 5:
        raise ArgumentValueError(f"{fn}: Expected 1<'protocol'<5, but received protocol={protocol}")
    if configs:
        raise TypeError(f"{fn}: unexpected keyword arguments {sorted(configs)}")
    program = as_program(program, fn)
    prefix = _prefix(fn, model_path)
    if os.path.basename(prefix) == "":
        raise PeError(f"{fn}: model_path must be dirname/filename (a file prefix), got {model_path!r}")
    scope = global_scope()
    params = variable_values(fn, _unique(program, is_parameter), scope)
    others = variable_values(fn, _unique(program, is_belong_to_optimizer), scope)
    write_file(prefix + ".pdparams", lambda f: write_state(f, params))
    write_file(prefix + ".pdopt", lambda f: write_state(f, others))
    model = whole_program_desc(program, prefix + ".pdmodel")
    write_file(prefix + ".pdmodel", lambda f: f.write(model))


def _checked(fn, vars, state, path):
    arrays = {}
    for v in vars:
        if v.name not in state:
            raise ArgumentAssertionError(f"{fn}: '{path}' has no variable '{v.name}' (the program has it)")
        arrays[v.name] = check_value(fn, v, state[v.name], f"'{path}'")
    return arrays


class ModelFileMissing(PeError, FileNotFoundError):
    """Neither ``.pdparams`` nor what save_vars wrote is at the path (Fluid: FileNotFoundError)."""


def _load_saved_vars(fn, program, model_path, executor, var_list):
    """``load`` of what save_vars wrote, as Fluid's: a directory (every variable of ``program`` that
    has a file there is loaded; files no variable names are named in a warning), or one file of
    the variables ``var_list``."""
    if executor is None:
        raise ArgumentValueError(
            "executor is required when loading model file saved with [ save_params, save_persistables, save_vars ]"
        )
    if os.path.isdir(model_path):
        files = saved_names(model_path)
        chosen = _unique(program, lambda v: v.name in files)
        unused = sorted(set(files) - {v.name for v in chosen})
        if unused:
            warnings.warn(f"{fn}: variable file [ {' '.join(files[n] for n in unused)} ] not used")
        load_vars(executor, model_path, program, vars=chosen)
    elif os.path.isfile(model_path):
        if var_list is None:
            raise ArgumentValueError(
                "var_list is required when loading model file saved with [ save_params, save_persistables, save_vars ]"
            )
        names = {v.name for v in program.list_vars()}
        for v in var_list:
            if v.name not in names:
                raise LookupError(f"{fn}: loaded var [{v.name}] is not in program variable list")
        load_vars(
            executor,
            os.path.dirname(model_path) or ".",
            program,
            vars=list(var_list),
            filename=os.path.basename(model_path),
        )
    else:
        raise ModelFileMissing(
            f"{fn}: '{model_path}.pdparams' does not exist (fluid.save writes the parameters "
            f"there), nor does '{model_path}' (what save_vars writes)"
        )


def _refuse_special(*paths):
    for path in paths:
        refuse_special(os.fspath(path), "checkpoint file")


def load(program, model_path, executor=None, var_list=None):
    """Sets the parameters and optimizer state of ``program`` in the global scope from what
    ``save(program, model_path)`` wrote (or, without ``.pdparams``, from save_vars' files)."""
    fn = "fluid.load"
    program = as_program(program, fn)
    prefix = _prefix(fn, model_path)
    params_path, opt_path = prefix + ".pdparams", prefix + ".pdopt"
    _refuse_special(model_path, params_path, opt_path)
    if not os.path.exists(params_path):
        return _load_saved_vars(fn, program, os.fspath(model_path), executor, var_list)
    arrays = _checked(fn, _unique(program, is_parameter), read_state(params_path, "parameters"), params_path)
    others = _unique(program, is_belong_to_optimizer)
    if not others and os.path.exists(opt_path):
        read_state(opt_path, "optimizer state")  # read even when unused: a payload is refused, never skipped
    if others:
        if not os.path.exists(opt_path):
            raise ArgumentAssertionError(
                f"{fn}: '{opt_path}' does not exist: the program has optimizer variables "
                f"('{others[0].name}', ...) and fluid.save writes them there"
            )
        arrays.update(_checked(fn, others, read_state(opt_path, "optimizer state"), opt_path))
    scope = global_scope()
    for name, array in arrays.items():
        scope.set_array(name, array)


def load_program_state(model_path, var_list=None):
    """The dict {name: ndarray} of ``model_path.pdparams`` and ``.pdopt`` (or, without them, of the
    files save_vars wrote at ``model_path``: the variables of ``var_list``, or every one)."""
    fn = "load_program_state"
    prefix = _prefix(fn, model_path)
    params_path, opt_path = prefix + ".pdparams", prefix + ".pdopt"
    _refuse_special(model_path, params_path, opt_path)
    if os.path.exists(params_path):
        state = read_state(params_path, "parameters")
        if os.path.exists(opt_path):
            state.update(read_state(opt_path, "optimizer state"))
        return state
    names = None if var_list is None else [v if isinstance(v, str) else v.name for v in var_list]
    model_path = os.fspath(model_path)
    if os.path.isfile(model_path):
        if names is None:
            raise ArgumentValueError(
                f"{fn}: var_list can not be None when model_path is a file type ('{model_path}' is "
                f"one file of variables: save_vars with filename)"
            )
        return read_saved(fn, os.path.dirname(model_path) or ".", names, os.path.basename(model_path))
    if os.path.isdir(model_path):
        return read_saved(fn, model_path, names)
    raise ModelFileMissing(
        f"{fn}: '{params_path}' does not exist (fluid.save writes the parameters there), "
        f"nor does '{model_path}' (what save_vars writes)"
    )


def set_program_state(program, state_dict):
    """Sets the persistable variables of ``program`` that ``state_dict`` names (after the startup
    program has run: each must have a value of the same shape and dtype); warns of the names it
    did not use. Everything is checked before anything is set."""
    fn = "set_program_state"
    program = as_program(program, fn)
    if not isinstance(state_dict, dict):
        raise TypeError(f"{fn}: state_dict must be a dict of name -> array, got {type(state_dict).__name__}")
    scope, chosen = global_scope(), {}
    for v in _unique(program, is_persistable):
        current = scope.get_array(v.name)
        if current is None:
            raise PeError(f"{fn}: variable '{v.name}' has no value: run the startup program first")
        if v.name not in state_dict:
            continue
        new = np.asarray(state_dict[v.name])
        current = np.asarray(current.copy_to_host() if hasattr(current, "copy_to_host") else current)
        if new.shape != current.shape or new.dtype != current.dtype:
            raise PeError(
                f"{fn}: '{v.name}' is {new.dtype} {list(new.shape)} in state_dict, the program's is "
                f"{current.dtype} {list(current.shape)}"
            )
        chosen[v.name] = np.array(new)
    for name, array in chosen.items():
        scope.set_array(name, array)
    unused = [k for k in state_dict if k not in chosen]
    params = [v.name for v in _unique(program, is_parameter)]
    if unused:  # (Paddle 2.6.2's words, and where a wrapped dict holds the state)
        warnings.warn(
            "This list is not set, Because of Paramerter not found in program. There are: "
            f"{' '.join(map(str, unused))}{wrapped_hint(state_dict, params)}"
        )
    kept = [n for n in params if n not in chosen]
    if kept:
        warnings.warn(f"{fn}: the state dict does not set the parameter(s) {' '.join(kept)}, which keep their values")
