"""How pe writes every file: to a temporary sibling, fsynced, then renamed over the old one, so a full
disk, a kill or a crash leaves the earlier file whole (``write_file``, ``atomic_write``); and why a
path cannot take an output is pe_cli/base/output_rule.py's (the rule every writer follows).

A new file gets the mode the umask gives (0666 & ~umask); a file written over keeps its mode. Every
``OSError`` of a write becomes a ``PeError`` naming the path and what to do (``write_error``).
Directories written as a whole (checkpoints, inference models) are pe_cli/io/atomic.py's, built on
these."""
import errno
import os
import stat
import tempfile

from .errors import PeError
from .output_rule import check_nul, check_write, output_problem


class OutputError(PeError, OSError):
    """A file pe writes could not be written: one line naming it and what to do (an OSError too, as
    the write's own error was, with its errno)."""

    def __init__(self, message, code=None):
        PeError.__init__(self, message)
        self.errno = code

    def __str__(self):
        return self.args[0]


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _umask()


def fsync_dir(path):
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


def new_mode(path, default=0o666):
    """The mode to give what replaces ``path``: its own where it exists, else (missing, or a symlink,
    which is replaced itself) ``default`` & ~umask."""
    try:
        if not os.path.islink(path):
            return stat.S_IMODE(os.stat(path).st_mode)
    except (OSError, ValueError):
        pass
    return default & ~UMASK


def write_file(path, write):
    """Calls ``write(f)`` on a temporary sibling of ``path`` (a binary file), fsyncs it, renames it
    onto ``path``. Missing parent directories are made. A symlink is replaced itself, never written
    through to its target (output_rule); a device or a pipe (``/dev/null``, ``/dev/stdout``) is
    written as it is. Returns ``path``."""
    shown = path = os.fspath(path)
    check_nul(path)
    check_write(path)
    if _is_special(path):
        return _write_special(path, write, shown)
    parent = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        os.makedirs(parent, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp-", dir=parent)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, new_mode(path))
        os.replace(tmp, path)
    except OSError as e:
        _discard(tmp)
        raise write_error(e, shown) from None
    except BaseException:
        _discard(tmp)
        raise
    fsync_dir(parent)
    return shown


def _is_special(path):
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_special(path, write, shown):
    """A device or a pipe holds no earlier file to keep: written in place, never replaced."""
    try:
        with open(path, "wb") as f:
            write(f)
    except OSError as e:
        raise write_error(e, shown) from None
    return shown


def atomic_write(path, data):
    """Writes bytes, or text as UTF-8, to ``path`` (``write_file``)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return write_file(path, lambda f: f.write(data))


def _discard(tmp):
    if tmp is not None and os.path.lexists(tmp):
        try:
            os.unlink(tmp)
        except OSError:
            pass


def is_short_write(error):
    """numpy reports a write cut short by a full disk without an errno."""
    return "requested and" in str(error) and "written" in str(error)


def write_error(error, path, directory=False):
    """An ``OSError`` of writing the file (``directory``: the directory) ``path`` as a one-line
    OutputError (what went wrong, what to do)."""
    if isinstance(error, PeError):
        return error
    code = getattr(error, "errno", None)
    if code == errno.ENOSPC or code == errno.EDQUOT or is_short_write(error):
        return OutputError(f"no space left on device writing {path}; free some space and write it again "
                       f"(an earlier {os.path.basename(path)} there is unchanged)", errno.ENOSPC)
    reason = output_problem(path, directory)
    if reason:
        return OutputError(f"cannot write {path}: {reason}", code)
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return OutputError(f"cannot write {path}: {os.strerror(code).lower()}; write somewhere you may write", code)
    return OutputError(f"cannot write {path}: {error.strerror or error}; write elsewhere", code)
