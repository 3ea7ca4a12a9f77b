"""Atomic writes of checkpoint files, so a crash never leaves a half-written checkpoint.

A single file is written to a temporary sibling, fsynced, then renamed over the old one. A directory
is built as a temporary sibling (keeping, as hard links, the files of the old directory that this
save does not rewrite), fsynced, then swapped in: the old directory is renamed aside, the new one
renamed into place, and only then is the old one removed. A crash while writing leaves the old
checkpoint untouched; a crash inside the swap leaves it complete under ``.<name>.old-*`` next to
``dirname`` (``interrupted_hint`` names it when loading).

Arrays are written with ``allow_pickle=False``: one ``.npy`` per file, or one ``.npz`` archive; a
directory's files may also be given as bytes (Fluid's formats: pe_cli/base/fluid_proto.py)."""

import errno
import glob
import os
import shutil
import tempfile
import zipfile

import numpy as np

from ..base.atomic_file import (
    OutputError,
    fsync_dir as _fsync_dir,
    is_short_write,
    new_mode,
    write_checked,
    write_error,
    write_file,
)
from ..base.errors import PeError
from ..base.output_rule import check_nul, check_write


def _write_npy(path, array, shown=None):
    """Writes ``array`` as an ``.npy`` file, or ``bytes`` as they are (a file in Fluid's formats),
    checked on disk against what was meant (base/atomic_file.py's ``write_checked``). Returns the
    ``Written``."""
    if isinstance(array, bytes):

        def write(f):
            f.write(array)
    else:

        def write(f):
            np.save(f, array, allow_pickle=False)

    try:
        with open(path, "wb") as f:
            return write_checked(f, write, path, shown)
    except OSError as e:
        raise _disk_error(e, shown or path) from None


def _disk_error(error, path):
    """A write that failed because the disk is full, said so, naming the file being written (numpy
    reports a short write without an errno); other errors as they are."""
    if error.errno == errno.ENOSPC or is_short_write(error):
        return OutputError(
            f"no space left on device writing {path}; free some space and save again "
            f"(the earlier checkpoint is untouched)",
            errno.ENOSPC,
        )
    return write_error(error, path)


def _write_npz(f, arrays):
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, array in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def write_npz(path, arrays):
    """Writes ``arrays`` (name -> array) as the ``.npz`` archive ``path``, atomically."""
    write_file(path, lambda f: _write_npz(f, arrays))


def _link_or_copy(src, dst):
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def write_dir(dirname, files, seal=None):
    """Writes ``files`` (file name -> array, or bytes) as the directory ``dirname``, atomically (see the
    module doc), each file checked on disk against what was meant. Other entries of an existing
    ``dirname`` are kept, and so is its mode. A symlink ``dirname`` is replaced itself by the new
    directory (its target's entries kept, as links, and the target untouched), never written through
    (pe_cli/base/output_rule.py). ``seal(tmp, written)``, where given, is called on the complete
    temporary directory before it is swapped in (a checkpoint's manifest, written and checked there),
    with ``written`` {file name: Written}. Returns ``written``."""
    try:
        return _write_dir(dirname, files, seal)
    except OSError as e:
        raise write_error(e, dirname, directory=True) from None


def _write_dir(dirname, files, seal):
    check_nul(os.fspath(dirname))
    for fname in files:
        check_write(os.path.join(dirname, fname))
    target = os.path.abspath(dirname)
    parent, base = os.path.dirname(target), os.path.basename(target)
    if os.path.exists(target) and not os.path.isdir(target):
        raise PeError(f"cannot save into '{dirname}': it exists and is not a directory")
    cwd = os.path.realpath(os.getcwd())
    if (
        os.path.isdir(target)
        and not os.path.islink(target)
        and (cwd == os.path.realpath(target) or cwd.startswith(os.path.realpath(target) + os.sep))
    ):
        return _files_in_place(target, files, seal)  # never swap the directory the process runs in
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{base}.tmp-", dir=parent)
    written = {}
    try:
        os.chmod(tmp, new_mode(target, 0o777))  # mkdtemp's 0700 would replace the old mode
        for fname, array in files.items():
            path = os.path.join(tmp, fname)
            os.makedirs(os.path.dirname(path), exist_ok=True)  # a variable named 'a/b' (Fluid's layout)
            written[fname] = _write_npy(path, array, os.path.join(dirname, fname))
        if os.path.isdir(target):
            _keep_old_entries(target, tmp, files)
        if seal is not None:
            seal(tmp, written)
        _fsync_dir(tmp)
        if os.path.isdir(target):
            backup = tempfile.mkdtemp(prefix=f".{base}.old-", dir=parent)
            os.rmdir(backup)  # a fresh unused name for the old directory
            os.rename(target, backup)
            try:
                os.rename(tmp, target)
            except BaseException:
                os.rename(backup, target)  # put the old checkpoint back
                raise
            _fsync_dir(parent)
            _remove(backup)
        else:
            os.rename(tmp, target)
        _fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return written


def _remove(path):
    """Removes the old directory renamed aside (or the symlink that stood for it, not its target)."""
    if os.path.islink(path):
        os.unlink(path)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _keep_old_entries(target, tmp, files):
    """Links (or copies) into ``tmp`` every entry of ``target`` that ``files`` does not rewrite,
    merging subdirectories that both hold."""
    for entry in os.listdir(target):
        src, dst = os.path.join(target, entry), os.path.join(tmp, entry)
        if os.path.isdir(src) and not os.path.islink(src):
            if os.path.isdir(dst):
                prefix = entry + os.sep
                _keep_old_entries(src, dst, {f[len(prefix) :]: v for f, v in files.items() if f.startswith(prefix)})
            elif entry not in files:
                shutil.copytree(src, dst, symlinks=True, copy_function=_link_or_copy)
        elif entry not in files and not os.path.lexists(dst):
            _link_or_copy(src, dst)


def _files_in_place(target, files, seal):
    """Each file written to a temporary name, fsynced, then renamed into place (all renames after
    all writes): used only when ``dirname`` holds the working directory and cannot be swapped."""
    tmps, written = {}, {}
    try:
        for fname, array in files.items():
            folder = os.path.dirname(os.path.join(target, fname))
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(fname)}.tmp-", dir=folder)
            os.close(fd)
            tmps[fname] = tmp
            written[fname] = _write_npy(tmp, array, os.path.join(target, fname))
            os.chmod(tmp, new_mode(os.path.join(target, fname)))
        for fname, tmp in tmps.items():
            os.replace(tmp, os.path.join(target, fname))
        if seal is not None:
            seal(target, written)
        _fsync_dir(target)
    except BaseException:
        for tmp in tmps.values():
            if os.path.exists(tmp):
                os.unlink(tmp)
        raise
    return written


def interrupted_hint(dirname):
    """'; a save was interrupted ...' naming the old checkpoint a crashed swap left, or ''."""
    target = os.path.abspath(dirname)
    olds = sorted(glob.glob(os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.old-*")))
    if olds:
        return f"; a save was interrupted and the previous checkpoint is at '{olds[-1]}'"
    return ""
