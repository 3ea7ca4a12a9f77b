"""numba's cache never unpickles what pe did not write (pe_cli/kernels/cpu/runtime/numba_cache.py): a
loop compiled with ``cache=True`` is kept in pe's per-user folder with pe's keyed digest; an index or
data file replaced by a pickle payload, by garbage or by a FIFO is removed with one warning and the
loop compiled again, with the right answer, and the payload never runs (it would create a marker
file). Each case is a fresh process, as a later run would be."""

import os
import pickle
import subprocess
import sys
import textwrap

from tests.cli.test_helpers import REPO

LOOP = """\
import numba

from pe_cli.kernels.cpu.runtime.numba_cache import install

install()


@numba.njit(cache=True)
def triple(x):
    return 3 * x
"""


class Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _run(tmp_path):
    code = textwrap.dedent("""\
        import sys
        sys.path.insert(0, sys.argv[1])
        import loop_module
        print(loop_module.triple(14))
    """)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "state"))
    env["NUMBA_CACHE_DIR"] = ""
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "src")], capture_output=True, text=True, env=env, timeout=120
    )


def _files(tmp_path):
    return sorted(p for p in (tmp_path / "cache" / "pe" / "numba").rglob("*") if p.suffix in (".nbi", ".nbc"))


def _warm(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "loop_module.py").write_text(LOOP)
    first = _run(tmp_path)
    assert first.returncode == 0 and first.stdout == "42\n" and first.stderr == "", first.stderr
    files = _files(tmp_path)
    assert [p.suffix for p in files] == [".nbc", ".nbi"]
    assert all(p.read_bytes().startswith(b"pe numba cache 1\n") for p in files)
    assert (tmp_path / "cache" / "pe" / "numba").stat().st_mode & 0o777 == 0o700
    again = _run(tmp_path)
    assert again.returncode == 0 and again.stdout == "42\n" and again.stderr == ""
    assert [p.stat().st_mtime_ns for p in _files(tmp_path)] == [p.stat().st_mtime_ns for p in files]  # loaded
    return files


def _rebuilt(tmp_path):
    done = _run(tmp_path)
    assert done.returncode == 0 and done.stdout == "42\n", done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pe: warning: numba's cache file "), done.stderr
    assert "was not written by pe (or is damaged): removed, not read" in lines[0]
    assert all(p.read_bytes().startswith(b"pe numba cache 1\n") for p in _files(tmp_path))


def test_a_pickle_payload_as_the_index_or_the_data_is_never_unpickled(tmp_path):
    index_and_data = _warm(tmp_path)
    marker = tmp_path / "ran"
    for path in index_and_data:
        path.write_bytes(pickle.dumps(Payload(str(marker))))
        _rebuilt(tmp_path)
        assert not marker.exists()


def test_a_garbage_cache_and_numba_s_own_format_are_rebuilt(tmp_path):
    index, data = reversed(_warm(tmp_path))
    index.write_bytes(b"\x80\x05not a pickle at all")
    _rebuilt(tmp_path)
    content = data.read_bytes()
    data.write_bytes(content[len(b"pe numba cache 1\n") + 32 :])  # numba's bytes without pe's digest
    _rebuilt(tmp_path)


def test_a_fifo_or_a_symlink_as_the_index_neither_blocks_nor_is_followed(tmp_path):
    index = _warm(tmp_path)[1]
    index.unlink()
    os.mkfifo(index)
    _rebuilt(tmp_path)
    target = tmp_path / "elsewhere.nbi"
    target.write_bytes(index.read_bytes())  # pe's own bytes, but reached through a link
    index.unlink()
    index.symlink_to(target)
    _rebuilt(tmp_path)
    assert not index.is_symlink()


def test_a_loops_stamp_follows_every_module_it_imports(tmp_path):
    """numba stamps a cached loop with its own file's hash: a loop that inlines another module's function kept the
    machine code of the function's old body once that changed. pe's stamp of its loops hashes every module of the
    package each imports, transitively: a change two imports away changes it, one in a module it does not import
    does not."""
    from pe_cli.kernels.cpu.runtime.numba_cache import dependency_digest

    package = tmp_path / "pkg"
    (package / "inner").mkdir(parents=True)
    (package / "a.py").write_text("from .b import f\nfrom pkg.inner import c\n")
    (package / "b.py").write_text("from .inner.d import g\n\ndef f(x):\n    return g(x)\n")
    (package / "inner" / "c.py").write_text("C = 1\n")
    (package / "inner" / "d.py").write_text("def g(x):\n    return x\n")
    (package / "unrelated.py").write_text("U = 1\n")
    before = dependency_digest(str(package / "a.py"), str(package))
    (package / "unrelated.py").write_text("U = 2\n")
    assert dependency_digest(str(package / "a.py"), str(package)) == before
    (package / "inner" / "d.py").write_text("def g(x):\n    return x + 1\n")
    changed = dependency_digest(str(package / "a.py"), str(package))
    assert changed != before
    (package / "inner" / "c.py").write_text("C = 2\n")  # (an absolute import of the package)
    assert dependency_digest(str(package / "a.py"), str(package)) != changed


def _ast_imports(path, package):
    """The files of ``package``'s modules that ``path`` imports, as Python's parser reads its import statements."""
    import ast

    from pe_cli.kernels.cpu.runtime.numba_cache import _module_files

    with open(path, "rb") as f:
        tree = ast.parse(f.read())
    top, found = os.path.basename(package), set()
    for node in ast.walk(tree):
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = (node.module or "").split(".")
            if node.level:
                base = os.path.dirname(path)
                for _ in range(node.level - 1):
                    base = os.path.dirname(base)
                module = [top, *os.path.relpath(base, package).split(os.sep), *module]
            module = [part for part in module if part not in (".", "")]
            modules = [module] + [module + [alias.name] for alias in node.names]
        for module in modules:
            if module and module[0] == top:
                found.update(_module_files(package, module[1:]))
    return found


def test_the_stamp_s_scan_finds_every_import_the_parser_finds_in_every_pe_module():
    """The stamp reads a module's imports with two patterns, not the parser (a tenth of a `pe` start); on every
    module of pe they find each import Python's parser finds (a generated segment's, ``from pe_cli.m import f as
    f0``, is the next test's last form): a change in a module a loop imports always changes the loop's stamp.
    (What they find beyond, a line of a docstring that reads as an import, only adds a file to the stamp.)"""
    from pe_cli.kernels.cpu.runtime.numba_cache import PACKAGE, _imports

    checked = 0
    for root, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                info = os.stat(path)
                missed = _ast_imports(path, PACKAGE) - set(_imports(path, info.st_mtime_ns, info.st_size, PACKAGE))
                assert not missed, f"{path}: the stamp's scan misses {sorted(missed)}"
                checked += 1
    assert checked > 500


def test_the_stamp_s_scan_reads_imports_over_lines_with_comments_and_aliases(tmp_path):
    from pe_cli.kernels.cpu.runtime.numba_cache import _imports

    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name in ("a", "b", "c", "d", "e", "f", "g"):
        (package / "sub" / f"{name}.py").write_text("X = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "top.py").write_text("")
    user = package / "sub" / "user.py"
    user.write_text(
        "import os\n"
        "from . import (\n    a,  # the first (of two)\n    b as bee,\n)\n"
        "import pkg.sub.c as see, pkg.top\n"
        "def f():\n    from .d import X  # noqa\n    from ..sub import e, f\n"
        "from pkg.sub.g import X as Y\n"
    )
    info = user.stat()
    found = {os.path.relpath(p, package) for p in _imports(str(user), info.st_mtime_ns, info.st_size, str(package))}
    want = {f"sub/{n}.py" for n in "abcdefg"} | {"sub/__init__.py", "top.py"}
    assert found == want == {os.path.relpath(p, package) for p in _ast_imports(str(user), str(package))}


def test_numba_is_given_the_stamp_of_a_loop_and_its_imports():
    """The stamp numba's index must match, for a pe loop (the softmax rows' loops inline _pointwise_loops.row_max):
    the dependency digest, not the hash of the loop's own file."""
    from numba.core import caching

    from pe_cli.kernels.cpu import _softmax_rows_loops as loops
    from pe_cli.kernels.cpu.runtime.numba_cache import PACKAGE, dependency_digest

    locator = caching.UserProvidedCacheLocator.from_function(loops.log_softmax.py_func, loops.__file__)
    stamp = locator.get_source_stamp()
    assert stamp == dependency_digest(loops.__file__)
    pointwise = os.path.join(PACKAGE, "kernels", "cpu", "_pointwise_loops.py")
    assert stamp != dependency_digest(pointwise) and stamp != caching._hash_source_file(loops.__file__, 0, 0)
