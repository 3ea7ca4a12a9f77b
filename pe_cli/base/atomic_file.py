"""How pe writes every file: to a temporary sibling, fsynced, then renamed over the old one, so a full
disk, a kill or a crash leaves the earlier file whole (``write_file``, ``atomic_write``); and why a
path cannot take an output is pe_cli/base/output_rule.py's (the rule every writer follows).

A new file gets the mode the umask gives (0666 & ~umask); a file written over keeps its mode. Every
``OSError`` of a write becomes a ``PeError`` naming the path and what to do (``write_error``).
Directories written as a whole (checkpoints, inference models) are pe_cli/io/atomic.py's, built on
these."""

import errno
import hashlib
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
    """Calls ``write(f)`` on a temporary sibling of ``path`` (a binary file), checks what reached the
    disk against what was meant (``write_checked``), then renames it onto ``path``. Missing parent
    directories are made. A symlink is replaced itself, never written through to its target
    (output_rule); a device or a pipe (``/dev/null``, ``/dev/stdout``) is written as it is. Returns
    ``path``."""
    write_verified(path, write)
    return os.fspath(path)


def write_verified(path, write):
    """``write_file``'s work; returns the ``Written`` (size and sha256 of what was meant) of the file
    now at ``path`` (None for a device or a pipe)."""
    shown = path = os.fspath(path)
    check_nul(path)
    check_write(path)
    if _is_special(path):
        _write_special(path, write, shown)
        return None
    parent = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        os.makedirs(parent, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp-", dir=parent)
        with os.fdopen(fd, "wb") as f:
            written = write_checked(f, write, tmp, shown)
        os.chmod(tmp, new_mode(path))
        os.replace(tmp, path)
    except OSError as e:
        _discard(tmp)
        raise write_error(e, shown) from None
    except BaseException:
        _discard(tmp)
        raise
    fsync_dir(parent)
    return written


class Written:
    """What a write meant: its size in bytes and, where it was written in order, its sha256."""

    def __init__(self, size, sha256):
        self.size, self.sha256 = size, sha256

    def entry(self):
        return {"bytes": self.size, "sha256": self.sha256}


class _Meant:
    """The file object ``write`` is given: passes every write on, counting the bytes (and hashing
    them while they come in order) so that what reached the disk can be checked against them. Not
    an io class: numpy writes arrays through ``write`` here, never through a FILE* of its own (whose
    short writes it does not see)."""

    def __init__(self, f):
        self._f, self._end, self._hash = f, 0, hashlib.sha256()

    def write(self, data):
        view = memoryview(data).cast("B")
        at = self._f.tell()
        n = self._f.write(view)
        if n is not None and n != len(view):
            raise OSError(errno.EIO, f"{n} of {len(view)} bytes written")
        if self._hash is not None and at == self._end:
            self._hash.update(view)
        else:
            self._hash = None  # written out of order (a zip's headers): its size is checked
        self._end = max(self._end, at + len(view))
        return len(view)

    def tell(self):
        return self._f.tell()

    def seek(self, *args):
        return self._f.seek(*args)

    def seekable(self):
        return True

    def flush(self):
        self._f.flush()

    def written(self):
        return Written(self._end, self._hash.hexdigest() if self._hash is not None else None)


def write_checked(f, write, path, shown=None):
    """Calls ``write`` on the open binary file ``f`` (the file ``path``, ``shown`` in messages) through
    ``_Meant``, flushes and fsyncs it, then checks it: its size on disk against the bytes meant, and
    its content read back against their sha256. A write cut short without an error (numpy under
    ``ulimit -f``, a quota, a filesystem that lies) is an OutputError, never a file taken as good.
    Returns the ``Written``."""
    meant = _Meant(f)
    write(meant)
    f.flush()
    os.fsync(f.fileno())
    written = meant.written()
    verify_file(path, written, shown or path)
    return written


def verify_file(path, written, shown):
    """Raises an OutputError unless the file ``path`` holds ``written``'s size (and sha256) on disk."""
    size = os.stat(path).st_size
    if size != written.size:
        raise OutputError(
            f"cannot write {shown}: {size} of {written.size} bytes reached the disk (a file-size "
            f"limit, a quota or a full disk?); nothing was replaced: free space or raise the "
            f"limit and write it again",
            errno.EFBIG,
        )
    if written.sha256 is not None and sha256_file(path) != written.sha256:
        raise OutputError(
            f"cannot write {shown}: what was read back differs from what was written (a "
            f"failing disk?); nothing was replaced: write it elsewhere",
            errno.EIO,
        )


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


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
        return OutputError(
            f"no space left on device writing {path}; free some space and write it again "
            f"(an earlier {os.path.basename(path)} there is unchanged)",
            errno.ENOSPC,
        )
    if code == errno.EFBIG:
        return OutputError(
            f"cannot write {path}: file too large for this process's file-size limit (ulimit -f) "
            f"or the filesystem; raise the limit or write elsewhere (an earlier "
            f"{os.path.basename(path)} there is unchanged)",
            code,
        )
    reason = output_problem(path, directory)
    if reason:
        return OutputError(f"cannot write {path}: {reason}", code)
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return OutputError(f"cannot write {path}: {os.strerror(code).lower()}; write somewhere you may write", code)
    return OutputError(f"cannot write {path}: {error.strerror or error}; write elsewhere", code)
