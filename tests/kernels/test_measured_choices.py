"""Library choices measured on the running CPU (kernels/cpu/runtime/measured_choices.py): measured once, kept in
a file beside numba's cache and read by later processes; a damaged or unwritable file only means
measuring again. ``pe info`` shows the choice and the times behind it."""

import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

from pe_cli.kernels.cpu.runtime import measured_choices

REPO = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(measured_choices, "_memo", {})
    (tmp_path / "pe").mkdir(mode=0o700)
    return tmp_path / "pe" / measured_choices.FILE


def candidates(calls):
    def slow():
        calls.append("slow")
        time.sleep(0.002)

    def quick():
        calls.append("quick")

    return {"slow": slow, "quick": quick}


def test_the_faster_is_measured_once_and_read_back_by_later_processes(cache):
    calls = []
    assert measured_choices.fastest("gemm", candidates(calls), "v1") == "quick"
    assert calls.count("slow") == calls.count("quick") == 1 + measured_choices.ROUNDS
    entry = json.loads(cache.read_text())[f"gemm | {measured_choices.cpu_model()} | v1"]
    assert entry["choice"] == "quick" and entry["seconds"]["slow"] > entry["seconds"]["quick"]
    measured_choices._memo.clear()  # another process: the file answers
    calls.clear()
    assert measured_choices.fastest("gemm", candidates(calls), "v1") == "quick" and calls == []
    assert measured_choices.fastest("gemm", candidates(calls), "v2") == "quick" and calls  # new versions: again


def test_the_preferred_library_stays_unless_another_is_clearly_faster(cache):
    def same():
        time.sleep(0.002)

    assert measured_choices.fastest("tie", {"other": same, "default": same}, prefer="default") == "default"
    assert measured_choices.fastest("gemm", candidates([]), prefer="slow") == "quick"


def test_a_damaged_file_is_measured_again_and_rewritten_whole(cache):
    cache.write_bytes(b"\x00{not json")
    calls = []
    assert measured_choices.fastest("gemm", candidates(calls), "v1") == "quick" and calls
    assert list(json.loads(cache.read_text())) == [f"gemm | {measured_choices.cpu_model()} | v1"]


def test_a_cache_folder_that_cannot_be_made_only_means_measuring_again(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))  # a folder under a file: no write
    monkeypatch.setattr(measured_choices, "_memo", {})
    assert measured_choices.fastest("gemm", candidates([]), "v1") == "quick"
    assert blocker.read_text() == "in the way"


def test_pe_info_names_the_cpu_and_the_blas_of_pe_s_loops(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), NUMBA_CACHE_DIR="")
    out = subprocess.run(
        [sys.executable, "-m", "pe_cli", "info"], capture_output=True, text=True, timeout=120, env=env, cwd=REPO
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith(f"CPU: {measured_choices.cpu_model()}")
    blas = next(line for line in lines if line.startswith("GEMMs of pe's loops: "))
    assert any(s in blas for s in ("measured on this CPU", "MKL not installed", "PE_BLAS="))
    assert f"measured choices: {tmp_path / 'pe' / measured_choices.FILE}" in lines
    assert f"numba's cache: {tmp_path / 'pe' / 'numba'} (read back only where pe's digest matches)" in lines


class Payload:
    """Unpickled, it would create the file ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def test_a_pickle_payload_a_fifo_or_a_symlink_as_the_file_is_not_read_and_is_replaced(cache, tmp_path):
    import pickle

    marker, target = tmp_path / "ran", tmp_path / "elsewhere.json"
    key = f"gemm | {measured_choices.cpu_model()} | v1"
    target.write_text(json.dumps({key: {"choice": "slow"}}))
    plants = [
        lambda: cache.write_bytes(pickle.dumps(Payload(marker))),
        lambda: os.mkfifo(cache),  # (opened blocking, the read would wait for a writer forever)
        lambda: cache.symlink_to(target),
    ]
    for plant in plants:
        if os.path.lexists(cache):
            cache.unlink()
        plant()
        measured_choices._memo.clear()
        assert measured_choices.fastest("gemm", candidates([]), "v1") == "quick"
        assert cache.is_file() and not cache.is_symlink() and list(json.loads(cache.read_text())) == [key]
    assert not marker.exists() and json.loads(target.read_text()) == {key: {"choice": "slow"}}
