"""The manifest of a checkpoint directory: ``manifest.json`` lists each file it holds with its size
and sha256, so a checkpoint is checked before any message names it as good.

    {"manifest": 1, "files": {"fc_0.w_0.npy": {"bytes": 4096, "sha256": "..."}, ...}}

``write_manifest`` is called once the variables are saved (and may list files about to be written,
given as bytes: the trainer state); ``manifest_problem`` checks a directory against its manifest
without opening anything that is not a regular file (a FIFO would block). A directory saved before
manifests existed has none: then each ``.npy`` file's header is checked against the file's size
(a truncated or pickled file is found; shapes and dtypes are checked against the program on load).
"""

import hashlib
import json
import os
import stat

import numpy as np

from ..base import json_once
from ..base.atomic_file import OutputError, sha256_file as _sha256_file
from ..base.dims import numel
from .atomic import write_file

MANIFEST = "manifest.json"


def write_manifest(dirname, pending=None, meant=None):
    """Writes ``dirname/manifest.json`` listing every regular file of ``dirname`` and the files of
    ``pending`` ({name: bytes}) that the caller writes next. A file of ``meant`` ({name: Written},
    what a write meant: base/atomic_file.py) is listed as meant, never as found on disk, so a file
    cut short is a mismatch, never a record of the short file."""
    meant = meant or {}
    files = {}
    for name in sorted(os.listdir(dirname)):
        path = os.path.join(dirname, name)
        if name == MANIFEST or name.startswith(".") or not stat.S_ISREG(os.lstat(path).st_mode):
            continue
        if getattr(meant.get(name), "sha256", None) is not None:
            files[name] = meant[name].entry()
        else:
            files[name] = {"bytes": os.path.getsize(path), "sha256": _sha256_file(path)}
    for name, data in (pending or {}).items():
        files[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    text = json.dumps({"manifest": 1, "files": files}, indent=1) + "\n"
    write_file(os.path.join(dirname, MANIFEST), lambda f: f.write(text.encode("utf-8")))


def seal(dirname, written, shown=None):
    """A checkpoint's seal (atomic.write_dir): its manifest, built from what was meant to be written,
    then the directory's files checked against it by size (their contents were read back as they were
    written; the caller reads the whole checkpoint back where it lies); a mismatch is an OutputError
    and the directory is never swapped in."""
    write_manifest(dirname, meant=written)
    files = read_manifest(dirname)  # each file's content was read back as it was written: sizes here
    problem = (
        files
        if isinstance(files, str)
        else next(
            (
                p
                for n, e in sorted(files.items())
                for p in [_file_problem(os.path.join(dirname, n), n, e["bytes"])]
                if p
            ),
            None,
        )
    )
    missing = sorted(n for n in written if os.sep not in n and n not in (files if isinstance(files, dict) else {}))
    problem = problem or (f"{missing[0]} is not in its manifest" if missing else None)
    if problem:
        raise OutputError(
            f"cannot write the checkpoint {shown or dirname}: read back, {problem}; the earlier checkpoint is unchanged"
        )


def read_manifest(dirname):
    """{file name: {"bytes", "sha256"}} of ``dirname``'s manifest; None when it has none; a string
    (the problem) when the manifest itself is unreadable."""
    path = os.path.join(dirname, MANIFEST)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > (64 << 20):
        return f"{MANIFEST} is not a regular file of a sane size"
    try:
        with open(path, encoding="utf-8") as f:
            files = json_once.load(f)["files"]
        if not all(isinstance(e.get("bytes"), int) and isinstance(e.get("sha256"), str) for e in files.values()):
            raise ValueError("an entry lacks its size or sha256")
        if any(os.path.basename(n) != n or n in ("", ".", "..") for n in files):
            raise ValueError("it names a file outside the checkpoint")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return f"{MANIFEST} is unreadable ({type(e).__name__}: {e})"
    return files


def _file_problem(path, name, size=None, sha256=None):
    """What is wrong with the file ``path`` against its manifest entry, or None."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return f"{name} is missing"
    if not stat.S_ISREG(st.st_mode):
        return f"{name} is not a regular file"
    if size is not None and st.st_size != size:
        return f"{name}: {st.st_size} bytes, manifest says {size}"
    if sha256 is not None and _sha256_file(path) != sha256:
        return f"{name}: its sha256 differs from the manifest's"
    return None


def _npy_problem(path, name):
    """A checkpoint without manifest: what is wrong with the ``.npy`` file ``path`` that its header
    shows (not an .npy file, a pickled object array, fewer bytes than its shape needs), or None."""
    problem = _file_problem(path, name)
    if problem:
        return problem
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            read_header = (
                np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            )
            shape, _, dtype = read_header(f)
            offset = f.tell()
    except Exception as e:  # anything unreadable in the header, said in the message
        return f"{name} is not an .npy file ({type(e).__name__}: {str(e)[:80]})"
    if dtype.hasobject:
        return f"{name} holds Python objects (a pickle), not a tensor"
    want = offset + numel(shape) * dtype.itemsize  # Python's ints: no int64 wrap to 0
    if os.path.getsize(path) != want:
        return f"{name}: {os.path.getsize(path)} bytes, its header says {want}"
    return None


def manifest_problem(dirname):
    """What is wrong with the checkpoint directory ``dirname`` (one phrase), or None when it is intact."""
    files = read_manifest(dirname)
    if isinstance(files, str):
        return files
    if files is None:
        names = sorted(n for n in os.listdir(dirname) if n.endswith(".npy"))
        problems = (_npy_problem(os.path.join(dirname, n), n) for n in names)
    else:
        problems = (_file_problem(os.path.join(dirname, n), n, e["bytes"]) for n, e in sorted(files.items()))
        problems = [p for p in problems if p] or (
            _file_problem(os.path.join(dirname, n), n, None, e["sha256"]) for n, e in sorted(files.items())
        )
    return next((p for p in problems if p), None)
