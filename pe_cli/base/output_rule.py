"""Where pe may write: the one rule every writer follows (docs/CONFIG.md, "Where outputs go").

Every path pe writes is checked, before any work where a command names it (``check_output``) and
again as it is written (``check_write``: pe_cli/base/atomic_file.py's write_file and
pe_cli/io/atomic.py's write_dir call it). A path
- must be able to take a file (or a directory): no NUL, folders that are writable directories;
- is never a file the same command reads: the inputs it names (config, data file, model
  directory's files) and every file it has read since its first output was checked (``note_read``,
  called where pe checks an input before reading it: limits.file_kind); compared resolved, so
  neither a symlink nor ``..`` gets round it. Only the outputs a command was told to write (and
  their side files) are held to this: a Fluid program overwriting its own earlier save is not;
- is, for a file pe writes beside an output the user named (``x.preprocessing.json`` beside
  ``--onnx x.onnx``), never a file already there with other bytes (``check_side_file``): pe replaces
  no file the user did not name;
- is, when it is a symlink, replaced itself, never written through to its target (write_file,
  write_dir); a link to a device or a pipe (``-o /dev/stdout``) is written as that device. A log
  appended to (``pe launch --log_dir``) is opened without following a symlink (``open_append``):
  a symlink there is refused.
Run directories and checkpoints are the run layer's: pe_cli/run/output_paths.py adds them on top.
Each refusal is one PeError line: the option and the path, what the path is, a place that works."""

import os

from .errors import PeError


def check_nul(path, option=None):
    if "\0" in path:
        raise PeError(
            f"{option + ' ' if option else ''}{path!r}: a path cannot hold a NUL character; give one without it"
        )


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


def check_place(path, option, directory=False, example="out"):
    """Raises a one-line PeError when ``path`` cannot take a file (``directory``: a directory) at all;
    claims nothing (a run directory pe makes itself)."""
    path = os.fspath(path)
    check_nul(path, option)
    reason = output_problem(path, directory, example)
    if reason:
        raise PeError(f"{option} {path}: {reason}")


def check_output(path, option, directory=False, example="out", inputs=()):
    """Raises a one-line PeError (``option``, e.g. "pe plot -o", and the path first) when ``path``
    cannot take an output or is one of ``inputs`` ((path, what it is) pairs, e.g. (data_path, "the
    data file")); else claims it as an output of this command (``check_write`` guards it from then)."""
    path = os.fspath(path)
    check_place(path, option, directory, example)
    _OUTPUTS[_real(path)] = (option, example)
    for given, what in inputs:
        if given is not None:
            _INPUTS[_real(given)] = what
    check_write(path)


# this process's command: resolved output path -> (option, example name); resolved input -> what it is
_OUTPUTS = {}
_INPUTS = {}


def _real(path):
    return os.path.realpath(os.fspath(path))


def note_read(path, what=None):
    """Remembers ``path`` as a file this command reads (``what``: e.g. "model file"), while the
    command has outputs to guard (a Fluid program without them records nothing)."""
    if not _OUTPUTS:
        return
    try:
        real = _real(path)
    except (TypeError, ValueError, OSError):
        return
    if what or real not in _INPUTS:
        _INPUTS[real] = f"the {what}" if what else "a file"


def check_write(path):
    """Raises a one-line PeError when ``path``, about to be written, is (or is inside) an output this
    command claimed and is a file the command reads."""
    if not _OUTPUTS:
        return
    real = _real(path)
    what = _INPUTS.get(real)
    owner = next((o for o in _OUTPUTS if real == o or real.startswith(o.rstrip(os.sep) + os.sep)), None)
    if what and owner is not None:
        option, example = _OUTPUTS[owner]
        raise PeError(
            f"{option} {path}: that is {what} this command reads; write elsewhere, e.g. {_elsewhere(path, example)}"
        )


def _elsewhere(path, example):
    folder = os.path.dirname(os.fspath(path))
    for name in (example, "pe-" + example, "pe-out-" + example):
        candidate = os.path.join(folder, name)
        if _real(candidate) not in _INPUTS and _real(candidate) != _real(path):
            return candidate
    return os.path.join(folder, "pe-out")


def check_side_file(path, data, option, main):
    """Claims ``path``, a file pe writes beside the output ``main`` that ``option`` named (e.g.
    x.preprocessing.json beside ``pe export --onnx x.onnx``), to be written with the bytes ``data``;
    raises a one-line PeError when something else is there already (other bytes, a symlink, a
    directory): the user never named it. The same bytes again (the same export repeated) are fine."""
    path, main = os.fspath(path), os.fspath(main)
    if os.path.lexists(path) and not _same_bytes(path, data):
        raise PeError(
            f"{option} {main}: {path} is already there and is not what pe writes there now (a file "
            f"beside the one you named); pe replaces no file you did not name: move it away, or give "
            f"another name, e.g. {_free_name(main, path)}"
        )
    _OUTPUTS[_real(path)] = (option, os.path.basename(path))
    check_write(path)


def _same_bytes(path, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) != len(data):
            return False
        with open(path, "rb") as f:
            return f.read() == data
    except OSError:
        return False


def _free_name(main, side):
    """``main`` numbered (x-2.onnx, x-3.onnx, ...) where neither it nor its ``side`` file exists."""
    stem, ext = os.path.splitext(main)
    suffix = side[len(stem) :] if side.startswith(stem) else None
    for n in range(2, 1000):
        candidate = f"{stem}-{n}{ext}"
        if not os.path.lexists(candidate) and not (suffix and os.path.lexists(f"{stem}-{n}{suffix}")):
            return candidate
    return f"{stem}-new{ext}"


def open_append(path):
    """``path`` opened to append (a log), made if missing with mode 0644 & ~umask, never through a
    symlink: a symlink there is a one-line PeError naming it. Returns the file descriptor."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    except OSError:
        if os.path.islink(path):
            raise PeError(
                f"{path} is a symlink; pe appends its log to a file of its own, never through a "
                f"link (to {os.readlink(path)}): remove the link, or give another log directory"
            ) from None
        raise
