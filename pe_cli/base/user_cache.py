"""pe's one per-user cache folder, and the rules every cache in it follows.

Everything pe keeps between runs lives under ``$XDG_CACHE_HOME/pe`` (default ``~/.cache/pe``), never
inside the installed package: ``numba/`` (numba's compiled loops: pe points ``NUMBA_CACHE_DIR`` there
unless the user set it; pe_cli/kernels/cpu/runtime/numba_cache.py), ``segments/`` (the planned step's
generated sources, pe_cli/executor/segment.py) and ``measured-choices.json``
(pe_cli/kernels/cpu/runtime/measured_choices.py).

A cache is shared with whoever can write it (a CI cache restored from another job, a home that is
writable): nothing in it is trusted for its name. ``folder`` makes each folder pe uses 0700 and owned
by the user, and replaces a symbolic link or a file standing where a folder should be (so nothing is
written through it); ``read`` opens an entry with O_NOFOLLOW and O_NONBLOCK and reads it only when it
is a regular file (a symlink, a FIFO or a device is foreign: it never blocks pe, never leads out of the
folder); ``write`` replaces an entry atomically (a symlink or a FIFO there is replaced, never written
through). What an entry is worth is its content: a segment's source is compared with the one pe
generates now; numba's pickled files are used only with pe's keyed digest (``digest``), made with a
per-user key kept outside the cache (``$XDG_STATE_HOME/pe/cache-key``), so bytes pe did not write are
never unpickled. Anything else is removed and rebuilt, with one warning (``warn``) per kind.
"""

import errno
import hashlib
import hmac
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile

_warned = set()
_swept = set()  # folders swept in this process
_key = []  # the per-user key, read once


class Foreign(Exception):
    """A cache entry pe did not make (a symbolic link, a FIFO, a device, a folder)."""


def root():
    """pe's cache folder (not made here)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pe")


def warn(kind, message):
    """One line on stderr, once per ``kind`` in a process."""
    if kind not in _warned:
        _warned.add(kind)
        print(f"pe: warning: {message}", file=sys.stderr)


def folder(*parts, base=None):
    """The folder ``base`` (default root()) / ``parts``, each level made 0700 where missing; a symlink or
    a non-folder in its place is removed and replaced (one warning). Raises OSError where it cannot be
    made or is another user's (callers then keep nothing on disk)."""
    path = base or root()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    _own_folder(path)
    for part in parts:
        path = os.path.join(path, part)
        _own_folder(path)
    return path


def _own_folder(path):
    try:
        os.mkdir(path, 0o700)
        return
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        what = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
        warn(
            ("folder", path),
            f"cache folder {path} is {what}: not used; replaced by a folder (nothing written through it)",
        )
        os.unlink(path)
        os.mkdir(path, 0o700)
        return
    if info.st_uid != os.getuid():
        warn(("owner", path), f"cache folder {path} belongs to another user: not used (nothing is cached)")
        raise OSError(errno.EPERM, f"{path} belongs to another user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)


def read(path):
    """The bytes of the regular file ``path``, or None where it is absent; raises Foreign where it is a
    symbolic link, a FIFO, a device or a folder (opened without following links and without blocking)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
            raise Foreign(f"{path} is not a regular file") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Foreign(f"{path} is not a regular file")
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def write(path, data):
    """Writes ``data`` to ``path`` atomically (a temporary sibling renamed over it: whatever stood there,
    a symlink or a FIFO included, is replaced, never written through). Raises OSError."""
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp-", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def sweep(path, pattern):
    """Removes, once per process, every entry of the folder ``path`` whose name is not ``pattern`` (a
    regular expression of the names pe writes there; pe's temporary files are left): a ``__pycache__``
    or anything else planted beside pe's files (one warning naming the first few)."""
    if path in _swept:
        return
    _swept.add(path)
    planted = [name for name in sorted(os.listdir(path)) if not re.fullmatch(pattern, name) and ".tmp-" not in name]
    for name in planted:
        entry = os.path.join(path, name)
        if os.path.isdir(entry) and not os.path.islink(entry):
            shutil.rmtree(entry, ignore_errors=True)
        else:
            remove(entry)
    if planted:
        shown = ", ".join(planted[:3]) + (f" and {len(planted) - 3} more" if len(planted) > 3 else "")
        warn(("swept", path), f"cache folder {path} held what pe does not write there ({shown}): removed, not used")


def remove(path):
    """Removes the entry ``path`` (a link itself, never its target); a folder is left."""
    try:
        os.unlink(path)
    except OSError:
        pass


def state_home():
    """``$XDG_STATE_HOME``, else ``~/.local/state``: where the cache's key lives."""
    return os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")


def _state_dir():
    return os.path.join(state_home(), "pe")


def key():
    """The per-user secret of ``digest`` (32 random bytes in ``$XDG_STATE_HOME/pe/cache-key``, 0600,
    made on first use; outside the cache, so a restored or planted cache cannot carry it). Raises
    OSError where it cannot be read or made."""
    if not _key:
        path = os.path.join(folder(base=_state_dir()), "cache-key")
        try:
            data = read(path)
        except Foreign:
            remove(path)
            data = None
        if data is None or len(data) != 32:
            data = secrets.token_bytes(32)
            fd, tmp = tempfile.mkstemp(prefix=".cache-key.tmp-", dir=os.path.dirname(path))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            if not _install_key(tmp, path):
                data = read(path)  # another process made it first: its key stands
                if data is None or len(data) != 32:
                    raise OSError(errno.EIO, f"{path}: not a key pe made")
        _key.append(data)
    return _key[0]


def _install_key(tmp, path):
    try:
        os.link(tmp, path)  # fails where another process made the key meanwhile
        return True
    except FileExistsError:
        if _bad_key(path):
            remove(path)
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
    finally:
        remove(tmp)


def _bad_key(path):
    try:
        data = read(path)
    except Foreign:
        return True
    return data is None or len(data) != 32


def digest(name, data):
    """pe's keyed digest (HMAC-SHA256, 32 bytes) of the entry ``name`` holding ``data``."""
    return hmac.new(key(), name.encode("utf-8") + b"\0" + data, hashlib.sha256).digest()
