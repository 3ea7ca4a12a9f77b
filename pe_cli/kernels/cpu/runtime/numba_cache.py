"""numba's cache, in pe's per-user cache folder and never unpickled unless pe wrote it.

numba keeps a compiled loop as two pickled files: an index (``.nbi``: numba's version, the source's
stamp, the signatures) and one data file per signature (``.nbc``: the machine code and what numba
needs to rebuild the function). It unpickles both when a loop is first called, so bytes planted in
its cache folder would run as code. ``install()``, called before any loop with ``cache=True`` is
made (each loops module calls it at its top; runtime/loops.py before it imports one):

- points numba's cache at ``$XDG_CACHE_HOME/pe/numba`` (``NUMBA_CACHE_DIR``, set for the helper
  process too; a ``NUMBA_CACHE_DIR`` the user set stands), made 0700 (pe_cli/base/user_cache.py), so
  numba never writes ``__pycache__`` inside the installed package;
- replaces the four methods of numba's ``IndexDataCacheFile`` that read and write those files:
  pe writes each file as a header, pe's keyed digest of the content (user_cache.digest: a per-user
  key kept outside the cache) and numba's bytes, and reads a file only through ``user_cache.read``
  (no symlink followed, no FIFO opened blocking), unpickling exactly the bytes whose digest it
  checked. A file without pe's digest (planted, damaged, another user's, numba's own format) is
  removed, with one warning per process, and the loop is compiled again. Outside that folder (numba
  falling back to another place when it cannot be written) nothing is read or written: the loop is
  compiled in memory;
- makes a pe loop's source stamp (what numba's index must match to be used) the hash of its module's source
  *and of every pe module it imports, transitively* (``dependency_digest``): numba hashes the function's own
  file only, so a loop that inlines another module's function (softmax's ``row_max``) kept its machine code
  after that function changed, in a checkout updated in place (an editable install) as in development.
"""

import errno
import functools
import hashlib
import hmac
import os
import pickle
import re

from ....base import user_cache

MAGIC = b"pe numba cache 1\n"
_root = []  # the real path of numba's cache folder, once installed
PACKAGE = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))  # pe_cli/
_SEGMENT = re.compile(r"pe_segment_[0-9a-f]{24}\.py")  # (a planned step's generated segment: executor/segment.py)


def install():
    """Points numba's cache at pe's folder and makes it read only what pe wrote (once per process)."""
    if _root:
        return
    from numba.core import caching, config

    directory = cache_dir()
    try:
        if os.environ.get("NUMBA_CACHE_DIR"):  # the user's folder, as it is
            os.makedirs(directory, exist_ok=True)
        else:
            user_cache.folder("numba")
    except OSError:
        pass  # nothing is cached: every file operation below declines
    os.environ["NUMBA_CACHE_DIR"] = directory  # (numba rereads it; the helper process inherits it)
    # a child inherits the folder, so it must inherit the key that signs it too (a child given another HOME
    # would otherwise sign with another key, and every other process would take its files for foreign ones)
    os.environ.setdefault("XDG_STATE_HOME", user_cache.state_home())
    config.CACHE_DIR = directory
    _root.append(os.path.realpath(directory))
    files = caching.IndexDataCacheFile
    files._load_index, files._save_index = _load_index, _save_index
    files._load_data, files._save_data = _load_data, _save_data
    locator = caching.UserProvidedCacheLocator  # (the one numba takes where CACHE_DIR is set, as here)
    numba_stamp = locator.get_source_stamp

    def get_source_stamp(self):
        path = os.path.realpath(self._py_file)
        if path.startswith(PACKAGE + os.sep) or _SEGMENT.fullmatch(os.path.basename(path)):
            return dependency_digest(path)
        return numba_stamp(self)

    locator.get_source_stamp = get_source_stamp


def dependency_digest(path, package=PACKAGE):
    """The SHA-256 of the source of ``path`` and of every module of ``package`` it imports, transitively (each
    by its path in the package, then its content's hash)."""
    seen, todo = {}, [os.path.realpath(path)]  # (each file's stat: its parse and hash are kept by it)
    while todo:
        name = todo.pop()
        if name not in seen:
            info = seen[name] = os.stat(name)
            todo.extend(_imports(name, info.st_mtime_ns, info.st_size, package))
    total = hashlib.sha256()
    for name, info in sorted(seen.items()):
        label = os.path.relpath(name, package) if name.startswith(package + os.sep) else os.path.basename(name)
        total.update(label.encode() + b"\0" + _content(name, info.st_mtime_ns, info.st_size))
    return total.digest()


@functools.lru_cache(maxsize=None)
def _content(path, mtime_ns, size):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


# the import statements of a module's source, as ruff formats pe's (tests/kernels/test_numba_cache.py checks that
# these find every import ast finds in every pe module): ``from <dots><module> import <names>`` (the names in
# parentheses over lines, a comment's parenthesis not closing them, each character read one way: no backtracking
# blow-up; or to the line's end) and ``import <modules>``, at a line's start. A line of a string that reads as an
# import only adds a file to the digest. 30 loop modules' digests took 0.36 s by ast.parse, 0.026 s so, on a 2-core
# AMD EPYC VM: every `pe` that runs a loop makes them (a `pe eval` starts in about 2 s there)
_FROM = re.compile(rb"^[ \t]*from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\((?:[^)#]|#[^\n]*\n)*\)|[^\n]*)", re.M)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([^\n]*)", re.M)


def _names(clause):
    """The names of an import clause (``a.b as c, d``; in parentheses, over lines, with comments)."""
    clause = re.sub(rb"#[^\n]*", b"", clause).strip(b"() \t\n")
    return [part.split()[0].decode() for part in clause.split(b",") if part.split()]


@functools.lru_cache(maxsize=None)
def _imports(path, mtime_ns, size, package):
    """The files of ``package``'s modules that ``path`` imports (relative imports, and absolute ones by the
    package's name; ``from . import x`` and ``from .m import x``: x's file too where x is a module)."""
    with open(path, "rb") as f:
        source = f.read()
    top, found = os.path.basename(package), []
    statements = [(len(dots), module.decode(), _names(names)) for dots, module, names in _FROM.findall(source)]
    statements += [(0, None, _names(names)) for names in _IMPORT.findall(source)]
    for level, module, names in statements:
        if module is None:  # import a.b, c
            modules = [name.split(".") for name in names]
        elif level:  # relative: from the importing file's package
            base = os.path.dirname(path)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            if not (base == package or base.startswith(package + os.sep)):
                continue
            parts = [top, *os.path.relpath(base, package).split(os.sep), *module.split(".")]
            parts = [part for part in parts if part not in (".", "")]
            modules = [parts] + [parts + [name] for name in names]
        else:
            modules = [module.split(".")] + [module.split(".") + [name] for name in names]
        for parts in modules:
            if parts[0] == top:
                found += _module_files(package, parts[1:])
    return tuple(found)


def _module_files(package, parts):
    base = os.path.join(package, *parts)
    return [f for f in (base + ".py", os.path.join(base, "__init__.py")) if os.path.isfile(f)]


def cache_dir():
    """numba's cache folder (pe's unless the user named one)."""
    return os.environ.get("NUMBA_CACHE_DIR") or os.path.join(user_cache.root(), "numba")


def _load_index(self):
    payload = _verified(self._index_path)
    if payload is None:
        return {}
    try:
        version, stamp, overloads = pickle.loads(payload)  # noqa: S301 (bytes pe wrote: digest checked)
    except Exception:  # pe's own file from another numba: compiled again
        return {}
    if version != self._version or stamp != self._source_stamp:
        return {}
    return overloads


def _save_index(self, overloads):
    _store(self._index_path, self._dump((self._version, self._source_stamp, overloads)))


def _load_data(self, name):
    payload = _verified(self._data_path(name))
    if payload is None:
        raise OSError(errno.ENOENT, f"{name}: not in pe's numba cache")  # numba's load(): a miss
    return pickle.loads(payload)  # noqa: S301 (bytes pe wrote: digest checked)


def _save_data(self, name, data):
    _store(self._data_path(name), self._dump(data))


def _within(path):
    folder = os.path.realpath(os.path.dirname(path))
    return bool(_root) and (folder == _root[0] or folder.startswith(_root[0] + os.sep))


def _verified(path):
    """The payload of pe's file ``path`` once its digest is checked; None where it is absent, outside
    pe's folder or not pe's (then removed, with one warning)."""
    if not _within(path):
        return None
    try:
        data = user_cache.read(path)
    except user_cache.Foreign:
        data = b""
    except OSError:
        return None
    if data is None:
        return None
    head = len(MAGIC) + 32
    if data.startswith(MAGIC) and len(data) > head:
        try:
            if hmac.compare_digest(data[len(MAGIC) : head], user_cache.digest(os.path.basename(path), data[head:])):
                return data[head:]
        except OSError:  # no key can be read or made: nothing is trusted, nothing removed
            return None
    user_cache.warn(
        "numba cache",
        f"numba's cache file {path} was not written by pe (or is damaged): removed, not read; "
        "its loops are compiled again",
    )
    user_cache.remove(path)
    return None


def _store(path, payload):
    if not _within(path):
        return
    try:
        user_cache.write(path, MAGIC + user_cache.digest(os.path.basename(path), payload) + payload)
    except OSError:
        pass  # (a full disk, a read-only folder): compiled again next time
