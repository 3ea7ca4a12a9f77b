"""The files of a checkpoint, as Fluid 1.8's ``save_vars`` writes them and pe wrote them before.

Fluid's (what pe writes): with no ``filename``, one file per variable at ``dirname/<name>``, a name
with '/' in subdirectories (Fluid's ``save`` op makes them), holding the variable as Fluid serializes
a LoDTensor (its LoD included) or a SelectedRows (pe_cli/base/lod_tensor_file.py); with
``filename``, the one file ``dirname/<filename>`` holding every LoDTensor end to end in the order of
their sorted names (``save_combine``); with neither, those bytes in memory.

pe's earlier format, still read: ``dirname/<name>.npy`` ('%', '/' and '\\' escaped), or one
``.npz`` archive ``filename``. Of a variable's Fluid file and its ``.npy`` file, the one saved last
is read. Reading checks every count against the bytes there, and each value against the program's
variable; nothing is unpickled."""

import os

import numpy as np

from ..base.dtypes import VarType
from ..base.errors import PeError
from ..base.limits import read_regular_file, refuse_special
from ..base.lod_tensor_file import read_lod_tensors, read_selected_rows, write_lod_tensor, write_selected_rows
from ..base.npy import read_npy
from ..base.selected_rows import SelectedRows
from .atomic import interrupted_hint

__all__ = [
    "file_name",
    "var_name",
    "fluid_path",
    "tensor_bytes",
    "fluid_files",
    "check_value",
    "read_dir",
    "read_combined",
    "saved_names",
]


def file_name(name):
    """pe's earlier ``.npy`` file of variable ``name``: the name, '%', '/' and '\\' escaped, + '.npy'."""
    if name in (".", ".."):
        name = name.replace(".", "%2E")
    return name.replace("%", "%25").replace("/", "%2F").replace("\\", "%5C") + ".npy"


def var_name(fname):
    """The variable name of an ``.npy`` file name (``file_name`` undone)."""
    name = fname[: -len(".npy")]
    for code, char in (("%2F", "/"), ("%5C", "\\"), ("%2E", "."), ("%25", "%")):
        name = name.replace(code, char)
    return name


def fluid_path(fn, name):
    """The relative path of variable ``name``'s file in Fluid's layout (``os.path.normpath`` of the
    name, as Fluid's save_vars joins it); a name that would leave the directory is an error."""
    path = os.path.normpath(name) if name else ""
    if not name or os.path.isabs(path) or path == "." or path.split(os.sep)[0] == "..":
        raise PeError(
            f"{fn}: variable '{name}' cannot be saved as a file of its own (its name leaves the "
            f"directory); give filename to save the variables in one file"
        )
    return path


def tensor_bytes(fn, var, value, lod=None):
    """(Fluid's bytes of one variable's value, True when it is a LoDTensor)."""
    if isinstance(value, SelectedRows):
        return write_selected_rows(value.rows, value.height, np.asarray(value.values)), False
    value = np.asarray(value.copy_to_host() if hasattr(value, "copy_to_host") else value)  # GPU scopes
    if value.dtype == object:
        raise PeError(f"{fn}: variable '{var.name}' holds Python objects, which Fluid's files do not store")
    try:
        return write_lod_tensor(value, lod or ()), True
    except PeError as e:
        raise PeError(f"{fn}: variable '{var.name}': {e}") from None


def fluid_files(fn, tensors, filename=None):
    """{relative path: bytes} of ``tensors`` ({name: (bytes, is a LoDTensor)}) as Fluid's ``save_vars``
    writes them: a file per variable, or the one file ``filename`` (none for no variables, as Fluid)."""
    if filename is None:
        files = {}
        for name, (data, _) in tensors.items():
            path = fluid_path(fn, name)
            if path in files:
                raise PeError(f"{fn}: variables '{name}' and another are both saved at '{path}'")
            files[path] = data
        return files
    for name, (_, dense) in tensors.items():
        if not dense:
            raise PeError(
                f"{fn}: '{name}' is a SelectedRows, which Fluid's combined file (save_combine) cannot "
                f"hold; save it without filename"
            )
    return {filename: b"".join(tensors[n][0] for n in sorted(tensors))} if tensors else {}


def check_value(fn, var, array, where):
    """``array`` checked against ``var``'s shape and dtype, and returned; a 0-d value for a [1]
    variable comes back as [1] (Paddle 2.x saves its scalars, a learning rate, as 0-d tensors)."""
    if isinstance(array, SelectedRows):
        return array
    if var.shape is not None:
        want = tuple(var.shape)
        if array.ndim == 0 and want == (1,):
            array = array.reshape(1)
        if len(want) != array.ndim or any(w >= 0 and w != s for w, s in zip(want, array.shape)):
            raise PeError(
                f"{fn}: '{var.name}' in {where} has shape {list(array.shape)}, the program expects {list(want)}"
            )
    if var.dtype is not None and np.dtype(var.dtype) != array.dtype:
        raise PeError(f"{fn}: '{var.name}' in {where} is {array.dtype}, the program expects {var.dtype}")
    return array


def _read_file(fn, path):
    """The bytes of the regular file ``path`` (a FIFO or a device is refused unread), its size within
    pe's data limit."""
    try:
        return read_regular_file(path, "checkpoint file", f"{fn}: '{path}'")
    except OSError as e:
        raise PeError(f"{fn}: cannot read '{path}': {e.strerror or e}") from None


def _read_fluid_file(fn, path, var):
    """(value, lod) of ``var`` from its own Fluid file: a SelectedRows for a SELECTED_ROWS variable."""
    data, where = _read_file(fn, path), f"'{path}'"
    if getattr(var, "type", None) == VarType.SELECTED_ROWS:
        rows, height, values = read_selected_rows(data, where)
        return SelectedRows(np.asarray(rows, np.int64), values, height), None
    ((array, lod),) = read_lod_tensors(data, where, count=1)
    return check_value(fn, var, array, where), lod or None


def _newer(path, other):
    """True when the file ``path`` exists and ``other`` does not or is older."""
    if not os.path.isfile(path):
        return False
    return not os.path.isfile(other) or os.stat(other).st_mtime_ns < os.stat(path).st_mtime_ns


def read_dir(fn, dirname, vars):
    """{name: (value, lod)} of ``vars`` from a directory of one file per variable (Fluid's, or pe's
    earlier ``.npy``); a variable without a file is an error naming it."""
    refuse_special(dirname, "checkpoint directory")
    if not os.path.isdir(dirname):
        raise PeError(f"{fn}: checkpoint directory '{dirname}' does not exist{interrupted_hint(dirname)}")
    out = {}
    for v in vars:
        npy = os.path.join(dirname, file_name(v.name))
        fluid = os.path.join(dirname, fluid_path(fn, v.name))
        refuse_special(fluid, f"variable file of '{v.name}'")
        if _newer(fluid, npy):
            out[v.name] = _read_fluid_file(fn, fluid, v)
            continue
        if not os.path.lexists(npy):
            raise PeError(f"{fn}: '{fluid}' is missing: the checkpoint has no variable '{v.name}'")
        try:
            array = read_npy(npy)  # header checked against the file's size and memory first; never unpickled
        except (PeError, OSError) as e:
            raise PeError(f"{fn}: variable '{v.name}': {e}") from None
        out[v.name] = (check_value(fn, v, array, f"'{npy}'"), None)
    return out


def combined_values(fn, data, where, vars):
    """{name: (array, lod)} of ``vars`` from bytes of Fluid's LoDTensors end to end in the order of
    their sorted names (save_combine), each checked against its variable."""
    tensors = read_lod_tensors(data, where, count=len(vars))
    by_name = {
        v.name: (check_value(fn, v, array, where), lod or None)
        for v, (array, lod) in zip(sorted(vars, key=lambda v: v.name), tensors)
    }
    return {v.name: by_name[v.name] for v in vars}


def read_combined(fn, path, vars):
    """{name: (array, lod)} of ``vars`` from the one file ``path``: Fluid's combined file, or pe's
    earlier ``.npz`` archive (a zip)."""
    refuse_special(path, "checkpoint file")
    if not os.path.isfile(path):
        raise PeError(f"{fn}: checkpoint file '{path}' does not exist")
    data = _read_file(fn, path)
    if not data.startswith(b"PK"):
        return combined_values(fn, data, f"'{path}'", vars)
    out = {}
    try:
        with np.load(path, allow_pickle=False) as npz:
            for v in vars:
                if v.name not in npz.files:
                    raise PeError(f"{fn}: '{path}' has no variable '{v.name}'")
                out[v.name] = (check_value(fn, v, npz[v.name], f"'{path}'"), None)
    except PeError:
        raise
    except Exception as e:
        raise PeError(f"{fn}: '{path}' is not a readable checkpoint: {type(e).__name__}: {e}") from None
    return out


def saved_names(dirname):
    """{variable name: its file} of every file under ``dirname``: a Fluid file's name is its path
    relative to ``dirname`` ('/'-separated, as Fluid's load_program_state names it), an ``.npy``
    file's the name it escapes; hidden files (an interrupted save's) are left out."""
    names = {}
    for root, dirs, files in os.walk(dirname):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if f.startswith("."):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, dirname).replace(os.sep, "/")
            name = var_name(rel) if root == dirname and f.endswith(".npy") else rel
            names.setdefault(name, path)
    return names
