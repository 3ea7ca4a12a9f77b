"""Where pe may write: the one rule every writer follows. A path that cannot take a file (or a
directory) is said in one line before any work is done (``check_output``)."""
import os

from .errors import PeError


def check_nul(path, option=None):
    if "\0" in path:
        raise PeError(f"{option + ' ' if option else ''}{path!r}: a path cannot hold a NUL character; "
                      f"give one without it")


def output_problem(path, directory=False, example="out"):
    """Why ``path`` cannot be written as a file (``directory``: as a directory), or None; ``example``
    is a file name to suggest inside a directory given for a file."""
    if "\0" in path:
        return "a path cannot hold a NUL character; give one without it"
    if os.path.isdir(path) and not directory:
        return f"that is a directory; give a file name, e.g. {os.path.join(path, example)}"
    if directory and os.path.lexists(path) and not os.path.isdir(path):
        return "that is a file, not a directory; give a directory (new or existing)"
    probe = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        return f"{probe} is a file, not a directory; give a path whose folders are directories"
    if not os.access(probe, os.W_OK | os.X_OK):
        why = "is on a read-only file system" if _read_only(probe) else "is not writable"
        return f"{probe} {why}; write somewhere you may write"
    return None


def _read_only(path):
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def check_output(path, option, directory=False, example="out"):
    """Raises a one-line PeError (``option``, e.g. "pe plot -o", and the path first) when ``path``
    cannot take an output."""
    path = os.fspath(path)
    check_nul(path, option)
    reason = output_problem(path, directory, example)
    if reason:
        raise PeError(f"{option} {path}: {reason}")
