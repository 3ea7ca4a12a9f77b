"""pe's cache cannot run foreign code (issue 99 item 1, issue 95 item 4; pe_cli/base/user_cache.py).

One warm cache is made by a real planned-step training run; each test copies it, plants what a shared
CI cache or a writable home could hold (a ``.pyc`` with the real segment's mtime and size, a pickle
payload in numba's index and data files, garbage, a FIFO, symlinks as
the folder and as an entry) and trains again: nothing planted runs (the payload would create a
marker file), nothing blocks, nothing is written through a link, at most one warning says what was
rebuilt, and the trained parameters are those of the clean run, to the bit."""

import importlib.util
import os
import pathlib
import pickle
import shutil
import sys

import pytest

from tests.cli.test_helpers import REPO, pe

# four steps: the planned step is made after the first ones (two segments)
TRAIN = ["train", "configs/mnist_mlp.yaml", "data.train.limit=256", "data.eval.limit=64", "max_steps=4"]
TRAIN += ["output.curves=false"]


class Payload:
    """Unpickled, it would create the file ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def _env(cache, state):
    return {
        "XDG_CACHE_HOME": str(cache),
        "XDG_STATE_HOME": str(state),
        "NUMBA_CACHE_DIR": "",  # (pe's own folder, not one a test process chose)
        "PE_PLANNED_STEP": "1",
        "PE_SEGMENT_COMPILE_AFTER": "0",  # (the segments compiled, and cached, from their first run)
        "PE_DEVICE_THREADS": "1",
        "PE_BLAS": "numpy",  # (no choice measured: a second measurement could pick another library)
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _train(cache, state, out):
    return pe(*TRAIN, "--out", out, env=_env(cache, state), timeout=600)


def _parameters(out):
    step = next(p for p in (pathlib.Path(out) / "ckpt").iterdir() if p.name.startswith("step-"))
    return {p.name: p.read_bytes() for p in sorted(step.glob("*.npy"))}


def _package_files():
    """(path, size, mtime) of every file under pe_cli/ but Python's own bytecode (another test process
    may import a module meanwhile; the runs here write none: PYTHONDONTWRITEBYTECODE)."""
    found = set()
    for root, _, files in os.walk(os.path.join(REPO, "pe_cli")):
        for name in files:
            if name.endswith(".pyc"):
                continue
            info = os.stat(os.path.join(root, name))
            found.add((os.path.join(root, name), info.st_size, info.st_mtime_ns))
    return found


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache made by a clean run (a cold compile) and kept as ``pristine``, the state folder holding
    pe's key, and the run's parameters; the package is unchanged by it. Every test trains on the
    cache at the same path (numba files its entries under a hash of the source's folder)."""
    base = tmp_path_factory.mktemp("warm")
    before = _package_files()
    first = _train(base / "cache", base / "state", base / "cold")
    assert first.returncode == 0, first.stderr
    after = _package_files()
    assert after == before, sorted(after ^ before)[:5]
    done = _train(base / "cache", base / "state", base / "run")
    assert done.returncode == 0 and "warning" not in done.stderr and "compil" not in done.stderr, done.stderr
    shutil.copytree(base / "cache", base / "pristine", symlinks=True)
    return base, _parameters(base / "run")


def _copy(warm, tmp_path):
    """The warm cache, as the clean run left it, at its own path."""
    base, _ = warm
    shutil.rmtree(base / "cache")
    shutil.copytree(base / "pristine", base / "cache", symlinks=True)
    return base / "cache" / "pe"


def _trained_again(warm, tmp_path, warnings=1):
    base, parameters = warm
    done = _train(base / "cache", base / "state", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("pe: warning:")]
    assert len(said) == warnings, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert _parameters(tmp_path / "run") == parameters
    return said


def test_nothing_is_written_inside_the_package_and_the_cache_is_the_user_s(warm):
    base, _ = warm
    root = base / "cache" / "pe"
    assert sorted(p.name for p in root.iterdir()) == ["numba", "segments"]
    for folder in (root, root / "numba", root / "segments"):  # (numba's folders inside: reached only through them)
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    assert not [p for p in pathlib.Path(REPO, "pe_cli").rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert not list(pathlib.Path(REPO, "pe_cli").rglob("measured-choices.json"))


def test_a_planted_pyc_with_the_segment_s_mtime_and_size_never_runs(warm, tmp_path):
    root = _copy(warm, tmp_path)
    marker = tmp_path / "ran"
    sources = sorted((root / "segments").glob("pe_segment_*.py"))
    assert sources
    for source in sources:
        info = source.stat()
        code = compile(f"open({str(marker)!r}, 'w').close()\n", str(source), "exec")
        data = importlib._bootstrap_external._code_to_timestamp_pyc(code, info.st_mtime, info.st_size)
        pyc = pathlib.Path(importlib.util.cache_from_source(str(source)))
        pyc.parent.mkdir(exist_ok=True)
        pyc.write_bytes(bytes(data))
    said = _trained_again(warm, tmp_path)
    assert not marker.exists()
    assert "held what pe does not write there (__pycache__): removed, not used" in said[0]
    assert not (root / "segments" / "__pycache__").exists()


def test_a_planted_segment_source_is_replaced_not_run(warm, tmp_path):
    root = _copy(warm, tmp_path)
    marker = tmp_path / "ran"
    for source in (root / "segments").glob("pe_segment_*.py"):
        source.write_text(f"open({str(marker)!r}, 'w').close()\n")
    said = _trained_again(warm, tmp_path)
    assert "is not the source pe generates" in said[0]
    assert not marker.exists()


def test_a_pickle_payload_in_numba_s_index_and_data_files_is_never_unpickled(warm, tmp_path):
    root = _copy(warm, tmp_path)
    marker = tmp_path / "ran"
    planted = [p for p in root.rglob("*") if p.suffix in (".nbi", ".nbc") and _of_a_segment(p)]
    assert any(p.suffix == ".nbi" for p in planted) and any(p.suffix == ".nbc" for p in planted)
    for path in planted:
        path.write_bytes(pickle.dumps(Payload(marker)))
    said = _trained_again(warm, tmp_path)
    assert "was not written by pe" in said[0] and "compiled again" in said[0]
    assert not marker.exists()
    for path in planted:  # the segments' files were read: removed and rebuilt by pe
        assert not path.name.startswith("pe_segment_") or path.read_bytes().startswith(b"pe numba cache")


def _of_a_segment(path):
    """numba's files of the segments (the kernels' loops: tests/kernels/test_numba_cache.py; a
    recompile of every loop a step calls is slow)."""
    return path.name.startswith("pe_segment_")


def test_a_garbage_numba_cache_is_rebuilt(warm, tmp_path):
    root = _copy(warm, tmp_path)
    for path in root.rglob("*"):
        if path.suffix in (".nbi", ".nbc") and _of_a_segment(path):
            path.write_bytes(b"\x80\x05garbage, not numba's")
    _trained_again(warm, tmp_path)


def test_fifos_in_the_cache_neither_block_nor_are_read(warm, tmp_path):
    root = _copy(warm, tmp_path)
    fifos = [next((root / "segments").glob("pe_segment_*.py"))]
    fifos.append(next(p for p in root.rglob("*.nbi") if p.name.startswith("pe_segment_")))
    for path in fifos:
        path.unlink()
        os.mkfifo(path)
    _trained_again(warm, tmp_path, warnings=2)  # a segment replaced, a numba file removed
    assert all(path.is_file() for path in fifos)


def test_a_symlinked_segments_folder_is_replaced_not_written_through(warm, tmp_path):
    root = _copy(warm, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(root / "segments")
    (root / "segments").symlink_to(elsewhere)
    said = _trained_again(warm, tmp_path)
    assert "is a symbolic link" in said[0]
    assert list(elsewhere.iterdir()) == [] and not (root / "segments").is_symlink()


def test_a_symlinked_entry_is_replaced_and_its_target_left_alone(warm, tmp_path):
    root = _copy(warm, tmp_path)
    marker = tmp_path / "ran"
    target = tmp_path / "target.py"
    target.write_text(f"open({str(marker)!r}, 'w').close()\n")
    source = next((root / "segments").glob("pe_segment_*.py"))
    source.unlink()
    source.symlink_to(target)
    _trained_again(warm, tmp_path)
    assert not marker.exists() and not source.is_symlink()
    assert target.read_text() == f"open({str(marker)!r}, 'w').close()\n"


if sys.platform == "win32":  # (FIFOs and O_NOFOLLOW are POSIX)
    pytestmark = pytest.mark.skip
