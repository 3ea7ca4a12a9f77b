"""``paddle.save`` / ``paddle.load`` (Paddle 2.6's paddle/framework/io.py) in static mode, in Paddle's
file formats, and ``Program.state_dict`` / ``set_state_dict``. **Nothing is ever unpickled.**

- ``save(obj, path)``: a Program -> its desc bytes (pe's own serialization,
  ``program.desc.serialize_to_string()``); anything else -> a protocol-2 pickle of plain data
  (dicts with text keys, lists, tuples, numbers, text, None) whose tensors (LoDTensors, a state
  dict's values) are numpy arrays (pe_cli/io/pdparams_write.py). Paddle's ``pickle.load`` reads it,
  and its ``paddle.load`` turns the arrays into tensors as it does with its own files. A state dict
  is {name: array}, as Paddle's ``_legacy_static_save``, so ``paddle.static.load`` takes it as a
  ``.pdparams``. ``protocol`` (2 to 4) is checked; the opcodes are protocol 2's whatever it is.
  ``use_binary_format=True``: one LoDTensor or SelectedRows in Fluid's binary form.
- ``load(path)``: a file or BytesIO is parsed by pe's pickle reader (pe_cli/io/pickle_data.py: the
  opcodes of plain data and numpy arrays, and the two call shapes Paddle writes for tensors,
  ``eval('data', {'data': array})`` and ``tuple(((name, array),))``, matched and never called; anything
  else is refused); failing that, as a binary SelectedRows, a LoDTensor, then a program (pe's or
  Fluid's protobuf). Arrays come back as LoDTensors (``return_numpy=True``: arrays), a state dict's
  name table dropped unless ``keep_name_table``. A directory or an inference-model prefix
  (``paddle.static.save_inference_model``, Fluid's ``__model__`` directory): {name: array} of its
  persistable variables. A path that is none of these, where pe's ``save_vars`` wrote the variable
  of that name (``<name>.npy``, pe's format for save_vars): that array.
"""

import io as _io
import os
import warnings

import numpy as np

from ...base.errors import ArgumentValueError, PeError
from ...base.limits import file_kind, regular_file
from ...base.lod_tensor_file import read_lod_tensors
from ...executor import Executor
from ...executor.scope import Scope, global_scope, scope_guard
from ...executor.selected_rows_var import SelectedRowsVar
from ...framework import Program
from ...framework.lod_tensor import LoDTensor
from ...base.npy import read_npy
from ...io.checkpoint import file_name, is_parameter
from ...io.inference import load_inference_model
from ...io.pdparams_write import write_object
from ...io.pickle_data import Refused, parse_data
from ...io.program_state import is_belong_to_optimizer
from ...io.state_checks import has_value, refuse_unset, wrapped_hint
from ...io.tensor_files import (
    is_file_path,
    is_memory_buffer,
    load_lod_tensor,
    load_selected_rows,
    read_bytes,
    save_lod_tensor,
    save_selected_rows,
    write_bytes,
)
from ..nn.layer import Layer

__all__ = ["save", "load"]

NAME_TABLE = "StructuredToParameterName@@"
_SAVE_CONFIGS, _LOAD_CONFIGS = (
    ("use_binary_format", "pickle_protocol"),
    ("model_filename", "params_filename", "keep_name_table", "return_numpy"),
)


def _array(value):
    """A tensor-like value (LoDTensor, a scope tensor, an array) as a numpy array."""
    return np.array(np.asarray(value))


def _plain(obj):
    """``obj`` with its LoDTensors as arrays (what Paddle's pickler writes for them)."""
    if isinstance(obj, (LoDTensor, np.ndarray)):
        return _array(obj)
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_plain(v) for v in obj)
    if isinstance(obj, SelectedRowsVar):
        raise NotImplementedError("`paddle.save` do not support saving 'SelectedRows'.")
    if isinstance(obj, Layer):
        raise ValueError("paddle do not support saving `paddle.nn.Layer` object.")
    return obj


# Paddle's private names, which its tests call
_save_lod_tensor, _load_lod_tensor = save_lod_tensor, load_lod_tensor
_save_selected_rows, _load_selected_rows = save_selected_rows, load_selected_rows


def save(obj, path, protocol=4, **configs):
    """Saves ``obj`` (a Program, a state dict, a tensor, or plain data holding tensors) at ``path`` (a
    file, written atomically, or a BytesIO)."""
    unknown = set(configs) - set(_SAVE_CONFIGS)
    if unknown:
        raise ValueError(f"The additional config ({sorted(unknown)[0]}) of `paddle.save` is not supported.")
    if is_file_path(path):
        if os.path.basename(os.fspath(path)) == "":
            raise ValueError(
                "The input path MUST be format of dirname/filename, but received filename is empty string."
            )
        dirname = os.path.dirname(os.fspath(path))
        if dirname:
            os.makedirs(dirname, exist_ok=True)
    elif not is_memory_buffer(path):
        raise ValueError(f"only supports saving objects to file and `BytesIO`, but got {type(path)}")
    binary = configs.get("use_binary_format", False)
    if not isinstance(binary, bool):
        raise TypeError(f"Type of `use_binary_format` should be bool, but received {type(binary)}.")
    if binary:
        if isinstance(obj, SelectedRowsVar):
            return save_selected_rows(obj, path)
        if isinstance(obj, LoDTensor):
            return save_lod_tensor(obj, path)
        raise NotImplementedError(
            f"When use_binary_format = True, `paddle.save`  expected Tensor, but received {type(obj)}."
        )
    protocol = configs.get("pickle_protocol", protocol)
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        raise ValueError(f"The 'protocol' MUST be `int`, but received {type(protocol)}")
    if not 1 < protocol < 5:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")
    if isinstance(obj, Program):
        return write_bytes(path, obj.desc.serialize_to_string())
    buffer = _io.BytesIO()
    write_object(buffer, _plain(obj))
    write_bytes(path, buffer.getvalue())


def _as_tensors(obj, return_numpy):
    """Paddle's ``_parse_load_result`` in static mode: arrays (and Paddle's (name, array) pairs of
    dygraph tensors) as LoDTensors, or arrays with ``return_numpy``."""
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], np.ndarray):
        obj = obj[1]
    if isinstance(obj, np.ndarray):
        return obj if return_numpy else LoDTensor(obj)
    if isinstance(obj, dict):
        return {k: _as_tensors(v, return_numpy) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_as_tensors(v, return_numpy) for v in obj)
    return obj


def _load_bytes(path, data, config):
    """What the bytes ``data`` at ``path`` hold: a pickle of plain data, else Fluid's binary forms,
    else a program."""
    where = path if is_file_path(path) else "the buffer"
    try:
        obj, end = parse_data(data, prefix=True)
    except (Refused, ValueError, TypeError, RecursionError) as e:
        refused = e
    else:
        if is_memory_buffer(path):
            path.seek(path.tell() + end)
        if isinstance(obj, dict) and not config.get("keep_name_table"):
            obj.pop(NAME_TABLE, None)
        return _as_tensors(obj, config.get("return_numpy", False))
    for reader in (load_selected_rows, load_lod_tensor):
        try:
            value, _ = reader(_io.BytesIO(data))
        except (PeError, ValueError, TypeError) as e:
            if data[:4] == b"\0\0\0\0":  # a LoDTensor's version 0, not a pickle: its reader's error
                refused = e
            continue
        if is_memory_buffer(path):
            path.seek(path.tell() + len(data))
        return _array(value) if reader is load_lod_tensor and config.get("return_numpy") else value
    try:
        program = _program(data)
    except Exception:  # noqa: BLE001 -- any failure: the bytes are none of the forms
        form = "a LoDTensor" if data[:4] == b"\0\0\0\0" else "a pickle of plain data and arrays"
        raise ArgumentValueError(
            f"`paddle.load` can not parse the file:{where}. It is none of what paddle.save "
            f"writes (as {form}: {refused})"
        ) from None
    if is_memory_buffer(path):
        path.seek(path.tell() + len(data))
    return program


def _program(data):
    """The Program of a ProgramDesc's bytes (Paddle's paddle.save of a Program; pe's earlier JSON of it too)."""
    return Program.parse_from_string(data)


def load(path, **configs):
    """What ``save`` (or Paddle's paddle.save / paddle.static.save / save_inference_model) wrote at
    ``path``: a file, a BytesIO, an inference-model prefix or a directory."""
    unknown = set(configs) - set(_LOAD_CONFIGS)
    if unknown:
        raise ValueError(f"The additional config ({sorted(unknown)[0]}) of `paddle.load` is not supported.")
    if not is_memory_buffer(path) and file_kind(path) not in (None, "missing", "a directory"):
        regular_file(path, "paddle.load file")  # a FIFO, a device: said so, unread
    if is_memory_buffer(path) or os.path.isfile(path):
        return _load_bytes(path, read_bytes(path, "paddle.load file"), configs)
    saved_var = os.path.join(os.path.dirname(os.fspath(path)), file_name(os.path.basename(os.fspath(path))))
    if os.path.basename(os.fspath(path)) and os.path.isfile(saved_var):  # pe's save_vars: one .npy a variable
        array = read_npy(saved_var)
        return array if configs.get("return_numpy") else LoDTensor(array)
    return _inference_state(os.fspath(path), configs.get("model_filename"), configs.get("params_filename"))


def _inference_state(path, model_filename, params_filename):
    """{name: array} of the persistable variables of the inference model at ``path``: a prefix
    (``path.pdmodel``) or a directory (Fluid's ``__model__``, or ``model_filename``); a directory
    without a model: every file in it, a LoDTensor named by its relative path."""
    prefix, directory = os.path.exists(path + ".pdmodel"), os.path.isdir(path)
    if prefix and directory:
        raise ValueError(
            f"The {path}.pdmodel and {path} directory exist at the same time, don't know which one "
            f"to load, please make sure that the specified target of ``path`` is unique."
        )
    if not prefix and not directory:
        raise ArgumentValueError(f"The ``path`` ({path}) to load model not exists.")
    if prefix:
        dirname, base = os.path.split(path)
        dirname, model_filename, params_filename = dirname or ".", base + ".pdmodel", base + ".pdiparams"
        if not os.path.exists(os.path.join(dirname, params_filename)):
            params_filename = None
    else:
        dirname = path
    if not os.path.exists(os.path.join(dirname, model_filename or "__model__")):
        return _params_dir(dirname)
    scope = Scope()
    with scope_guard(scope):
        program, _, _ = load_inference_model(dirname, Executor(), model_filename, params_filename)
        return {
            v.name: _array(scope.find_var(v.name).get_tensor())
            for v in program.list_vars()
            if v.persistable and scope.find_var(v.name) is not None
        }


def _params_dir(dirname):
    state = {}
    for root, _, files in os.walk(dirname):
        for name in sorted(files):
            full = os.path.join(root, name)
            ((array, _),) = read_lod_tensors(read_bytes(full), full, count=1)
            state[os.path.relpath(full, dirname).replace(os.sep, "/")] = array
    if not state:  # {} would let set_state_dict keep the random weights without a word
        raise ArgumentValueError(
            f"paddle.load: {dirname} is a directory holding no model (__model__) and no saved "
            f"variable file, so there is nothing to load; give the file or prefix that "
            f"paddle.save / save_inference_model wrote"
        )
    return state


# -- Program.state_dict / set_state_dict (Paddle 2.x's, on the scope) --------------------------------
def state_dict(self, mode="all", scope=None):
    """{name: LoDTensor} of the program's parameters (``mode='param'``), its other persistable
    variables (``'opt'``) or both (``'all'``), from ``scope`` (the global scope by default)."""
    if scope is not None and not isinstance(scope, Scope):
        raise TypeError(f"`scope` should be None or `paddle.static.Scope'` type, but received {type(scope)}.")
    if not isinstance(mode, str):
        raise TypeError(f"Type of `mode` should be string, but received {type(mode)}.")
    if mode not in ("param", "opt", "all"):
        raise ValueError(f"`mode` string should be 'param', 'opt' or 'all', but received {mode}.")
    scope = scope or global_scope()
    chosen = {
        "param": is_parameter,
        "opt": is_belong_to_optimizer,
        "all": lambda v: is_parameter(v) or is_belong_to_optimizer(v),
    }[mode]
    out = {}
    for var in self.list_vars():
        if chosen(var):
            found = scope.find_var(var.name)
            if found is None:
                raise ValueError(f"Can not find Variable '{var.name}' in the scope. Make sure it is initialized")
            out[var.name] = found.get_tensor()
    return out


def set_state_dict(self, state_dict, scope=None):
    """Sets each variable of the program that ``state_dict`` names (through ``Variable.set_value``);
    a name the program lacks, or a value set_value refuses, is skipped with a warning, as Paddle's. pe's
    besides (io/state_checks.py): a parameter with no value (the startup program has not run) is refused
    in one line before anything is set, and the parameters the dict does not set are named."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"Type of `state_dict` should be dict, but received {type(state_dict)}.")
    variables = {v.name: v for v in self.list_vars()}
    table = state_dict.get(NAME_TABLE, {})
    params = [v.name for v in variables.values() if is_parameter(v)]
    where = scope or global_scope()
    refuse_unset("Program.set_state_dict", [(n, n) for n in params if not has_value(where, n)], state_dict, params)
    done = set()
    for name, value in state_dict.items():
        if name == NAME_TABLE:
            continue
        name = table.get(name, name)
        if name not in variables:
            warnings.warn(f"Skip loading for '{name}'. Because '{name}' not in the program.")
            continue
        try:
            variables[name].set_value(value, scope)
            done.add(name)
        except (ValueError, TypeError) as err:
            warnings.warn(f"Skip loading for '{name}'. {err}")
    kept = [n for n in params if n not in done]
    if kept:
        warnings.warn(
            f"Program.set_state_dict: the state dict does not set the parameter(s) {', '.join(kept[:20])}"
            f"{' and more' if len(kept) > 20 else ''}, which keep their values{wrapped_hint(state_dict, params)}"
        )


def patch_program():
    """Adds ``state_dict`` / ``set_state_dict`` to Program (Paddle 2.x's). Idempotent."""
    Program.state_dict, Program.set_state_dict = state_dict, set_state_dict
