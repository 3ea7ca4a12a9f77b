"""Checkpoints (Fluid 1.x ``fluid.io``): save and load the values of a program's variables.

Format, never unpickled: with ``filename=None`` one ``<dirname>/<variable name>.npy`` per variable;
with ``filename`` one ``<dirname>/<filename>`` holding every variable as an ``.npz`` archive keyed by
variable name. Arrays are written and read with ``allow_pickle=False``.

Writes are atomic. A single file is written to a temporary sibling, fsynced, then renamed over the
old one. A directory is built as a temporary sibling (keeping, as hard links, the files of the old
directory that this save does not rewrite), fsynced, then swapped in: the old directory is renamed
aside, the new one renamed into place, and only then is the old one removed. A crash while writing
leaves the old checkpoint untouched; a crash inside the swap leaves it complete under
``.<name>.old-*`` next to ``dirname`` (loading names it).

Loading reads everything first and checks that each expected variable is there with the program's
shape and dtype; a mismatch is a one-line error naming the file and the variable, and nothing is
loaded. Values go to the current global scope (``fluid.scope_guard`` selects another).

Optimizer state (moments, beta powers, learning rates, ``@LR_DECAY_COUNTER@``) is persistable, so
``save_persistables`` then ``load_persistables`` resumes training exactly.
"""
import glob
import io as _io
import json
import os
import shutil
import tempfile
import warnings
import zipfile

import numpy as np

from .errors import PeError
from .executor.scope import global_scope
from .framework import OpRole, Program, default_main_program
from .framework.variable import Parameter, Variable

__all__ = ["save_vars", "load_vars", "save_params", "load_params", "save_persistables", "load_persistables",
           "save_inference_model", "load_inference_model", "is_parameter", "is_persistable"]

_NOT_SAVED_TYPES = ("feed_minibatch", "fetch_list", "reader", "raw")


def is_parameter(var):
    return isinstance(var, Parameter)


def is_persistable(var):
    return bool(var.persistable) and str(var.type).lower() not in _NOT_SAVED_TYPES and not var.is_data


def _program(main_program, fn):
    program = default_main_program() if main_program is None else main_program
    program = getattr(program, "_program", program)   # a CompiledProgram
    if not isinstance(program, Program):
        raise TypeError(f"{fn}: main_program must be a Program, got {type(program).__name__}")
    return program


def _select(fn, main_program, vars, predicate):
    """The variables to save or load, by name, in program order, without duplicates."""
    if vars is None:
        program = _program(main_program, fn)
        chosen = [v for v in program.list_vars() if predicate is None or predicate(v)]
    else:
        program = _program(main_program, fn) if main_program is not None else None
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


# -- writing --------------------------------------------------------------------------------------

def _fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_npy(path, array):
    with open(path, "wb") as f:
        np.save(f, array, allow_pickle=False)
        f.flush()
        os.fsync(f.fileno())


def _write_npz(f, arrays):
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, array in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def _atomic_file(path, write):
    """Calls ``write(f)`` on a temporary sibling of ``path``, fsyncs it, renames it onto ``path``."""
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp-", dir=parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_dir(parent)


def _link_or_copy(src, dst):
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def _atomic_dir(dirname, files):
    """Writes ``files`` (file name -> array) as the directory ``dirname``, atomically (see the
    module doc). Other entries of an existing ``dirname`` are kept."""
    target = os.path.abspath(dirname)
    parent, base = os.path.dirname(target), os.path.basename(target)
    if os.path.exists(target) and not os.path.isdir(target):
        raise PeError(f"cannot save into '{dirname}': it exists and is not a directory")
    cwd = os.path.realpath(os.getcwd())
    if os.path.isdir(target) and (cwd == os.path.realpath(target) or
                                  cwd.startswith(os.path.realpath(target) + os.sep)):
        return _files_in_place(target, files)   # never swap the directory the process runs in
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{base}.tmp-", dir=parent)
    try:
        for fname, array in files.items():
            _write_npy(os.path.join(tmp, fname), array)
        if os.path.isdir(target):
            for entry in os.listdir(target):
                if entry in files:
                    continue
                src, dst = os.path.join(target, entry), os.path.join(tmp, entry)
                if os.path.isdir(src) and not os.path.islink(src):
                    shutil.copytree(src, dst, symlinks=True, copy_function=_link_or_copy)
                else:
                    _link_or_copy(src, dst)
        _fsync_dir(tmp)
        if os.path.isdir(target):
            backup = tempfile.mkdtemp(prefix=f".{base}.old-", dir=parent)
            os.rmdir(backup)            # a fresh unused name for the old directory
            os.rename(target, backup)
            try:
                os.rename(tmp, target)
            except BaseException:
                os.rename(backup, target)   # put the old checkpoint back
                raise
            _fsync_dir(parent)
            shutil.rmtree(backup, ignore_errors=True)
        else:
            os.rename(tmp, target)
        _fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _files_in_place(target, files):
    """Each file written to a temporary name, fsynced, then renamed into place (all renames after
    all writes): used only when ``dirname`` holds the working directory and cannot be swapped."""
    tmps = {}
    try:
        for fname, array in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{fname}.tmp-", dir=target)
            os.close(fd)
            tmps[fname] = tmp
            _write_npy(tmp, array)
        for fname, tmp in tmps.items():
            os.replace(tmp, os.path.join(target, fname))
        _fsync_dir(target)
    except BaseException:
        for tmp in tmps.values():
            if os.path.exists(tmp):
                os.unlink(tmp)
        raise


def _values(fn, vars, scope):
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
    arrays = _values(fn, chosen, global_scope())
    if filename is None:
        files = {}
        for name, array in arrays.items():
            fname = _file_name(name)
            if fname in files:
                raise PeError(f"{fn}: variables '{name}' and another map to the same file '{fname}'")
            files[fname] = array
        _atomic_dir(dirname, files)
    else:
        filename = os.fspath(filename)
        if os.path.basename(filename) != filename or filename in ("", ".", ".."):
            raise PeError(f"{fn}: filename must be a file name inside dirname, got {filename!r}")
        _atomic_file(os.path.join(dirname, filename), lambda f: _write_npz(f, arrays))


def save_params(executor, dirname, main_program=None, filename=None):
    """Saves every parameter of ``main_program`` (default: the default main program)."""
    save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def save_persistables(executor, dirname, main_program=None, filename=None):
    """Saves every persistable variable (parameters, optimizer state, learning-rate counters)."""
    save_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


# -- reading --------------------------------------------------------------------------------------

def _interrupted_hint(dirname):
    target = os.path.abspath(dirname)
    olds = sorted(glob.glob(os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.old-*")))
    if olds:
        return f"; a save was interrupted and the previous checkpoint is at '{olds[-1]}'"
    return ""


def _check(fn, var, array, where):
    if var.shape is not None:
        want = tuple(var.shape)
        if len(want) != array.ndim or any(w >= 0 and w != s for w, s in zip(want, array.shape)):
            raise PeError(f"{fn}: '{var.name}' in {where} has shape {list(array.shape)}, "
                          f"the program expects {list(want)}")
    if var.dtype is not None and np.dtype(var.dtype) != array.dtype:
        raise PeError(f"{fn}: '{var.name}' in {where} is {array.dtype}, the program expects {var.dtype}")


def _read_dir(fn, dirname, vars):
    if not os.path.isdir(dirname):
        raise PeError(f"{fn}: checkpoint directory '{dirname}' does not exist{_interrupted_hint(dirname)}")
    arrays = {}
    for v in vars:
        path = os.path.join(dirname, _file_name(v.name))
        if not os.path.isfile(path):
            raise PeError(f"{fn}: '{path}' is missing: the checkpoint has no variable '{v.name}'")
        try:
            array = np.load(path, allow_pickle=False)
            if not isinstance(array, np.ndarray):
                raise ValueError("it holds an archive, not one array")
        except Exception as e:
            raise PeError(f"{fn}: '{path}' (variable '{v.name}') is not a readable .npy file: "
                          f"{type(e).__name__}: {e}") from None
        _check(fn, v, array, f"'{path}'")
        arrays[v.name] = array
    return arrays


def _read_npz(fn, path, vars):
    if not os.path.isfile(path):
        raise PeError(f"{fn}: checkpoint file '{path}' does not exist")
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
                _check(fn, v, array, f"'{path}'")
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


# -- inference models -----------------------------------------------------------------------------

_MODEL_FILE = "__model__"
_FORMAT = "pe-inference-model"


def _json_attr(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_json_attr(v) for v in value]
    return value


def _prune(program, targets):
    """The forward ops that ``targets`` depend on, in order."""
    block = program.global_block()
    needed = set(targets)
    keep = []
    for op in reversed(block.ops):
        if (op.role & ~OpRole.Loss) != OpRole.Forward:
            continue
        if any(n in needed for n in op.output_arg_names):
            keep.append(op)
            needed.update(op.input_arg_names)
    return list(reversed(keep)), needed


def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, export_for_deployment=True,
                         program_only=False):
    """Saves the forward ops that compute ``target_vars`` from ``feeded_var_names`` as JSON
    (``__model__`` or ``model_filename``) and the parameters they use (like ``save_vars``).
    Returns the names of the targets."""
    fn = "save_inference_model"
    program = _program(main_program, fn)
    if isinstance(feeded_var_names, str):
        feeded_var_names = [feeded_var_names]
    target_vars = target_vars if isinstance(target_vars, (list, tuple)) else [target_vars]
    targets = [t if isinstance(t, str) else t.name for t in target_vars]
    block = program.global_block()
    for name in list(feeded_var_names) + targets:
        if not block.has_var(name):
            raise PeError(f"{fn}: '{name}' is not a variable of the program")
    with warnings.catch_warnings():   # the optimize ops a training program holds are pruned below
        warnings.simplefilter("ignore")
        test_program = program.clone(for_test=True)
    ops, used = _prune(test_program, targets)
    if not ops:
        raise PeError(f"{fn}: no forward op computes {targets}")
    produced = {n for op in ops for n in op.output_arg_names}
    missing = [n for n in used if n not in produced and n not in feeded_var_names and block.has_var(n)
               and not block.var(n).persistable]
    if missing:
        raise PeError(f"{fn}: the targets need {sorted(missing)}, which are neither fed nor persistable; "
                      f"add them to feeded_var_names")
    var_names = [n for n in block.vars if n in used]
    model = {
        "format": _FORMAT, "version": 1,
        "feed": list(feeded_var_names), "fetch": targets,
        "vars": [dict(name=n, shape=None if block.var(n).shape is None else list(block.var(n).shape),
                      dtype=block.var(n).dtype, lod_level=block.var(n).lod_level,
                      persistable=bool(block.var(n).persistable), parameter=is_parameter(block.var(n)))
                 for n in var_names],
        "ops": [dict(type=op.type, inputs=op.inputs, outputs=op.outputs,
                     attrs={k: _json_attr(v) for k, v in op.attrs.items() if not k.startswith("_")})
                for op in ops],
    }
    try:
        text = json.dumps(model, indent=1, allow_nan=True)
    except TypeError as e:
        raise PeError(f"{fn}: an op attribute cannot be stored as JSON: {e}") from None
    params = [block.var(n) for n in var_names if is_persistable(block.var(n))]
    if not program_only:
        save_vars(executor, dirname, program, vars=params, filename=params_filename)
    _atomic_file(os.path.join(dirname, model_filename or _MODEL_FILE), lambda f: f.write(text.encode()))
    return targets


def load_inference_model(dirname, executor, model_filename=None, params_filename=None, pserver_endpoints=None):
    """Loads what ``save_inference_model`` wrote; returns [program, feed names, fetch variables]
    with the parameters set in the global scope."""
    fn = "load_inference_model"
    path = os.path.join(dirname, model_filename or _MODEL_FILE)
    if not os.path.isfile(path):
        raise PeError(f"{fn}: '{path}' does not exist{_interrupted_hint(dirname)}")
    try:
        with open(path, "rb") as f:
            model = json.loads(f.read().decode())
        if model.get("format") != _FORMAT:
            raise ValueError(f"format is {model.get('format')!r}")
    except Exception as e:
        raise PeError(f"{fn}: '{path}' is not a pe inference model: {type(e).__name__}: {e}") from None
    program = Program()
    block = program.global_block()
    for v in model["vars"]:
        if v.get("parameter"):
            block.create_parameter(v["name"], v["shape"], v["dtype"], trainable=False)
        else:
            block.create_var(name=v["name"], shape=v["shape"], dtype=v["dtype"], lod_level=v["lod_level"],
                             persistable=v["persistable"], is_data=v["name"] in model["feed"],
                             need_check_feed=v["name"] in model["feed"], stop_gradient=True)
    for op in model["ops"]:
        block.append_op(op["type"], op["inputs"], op["outputs"], op["attrs"])
    program._is_test = True
    params = [v for v in block.vars.values() if is_persistable(v)]
    load_vars(executor, dirname, program, vars=params, filename=params_filename)
    return [program, list(model["feed"]), [block.var(n) for n in model["fetch"]]]
