"""Inputs that cannot train are refused before training (issue 88, item 4), through real `pe`
processes on a generated table: a regex tokenizer whose pattern can match the empty string (main
made every text empty tokens and "trained"), a label of one class (main reported 100 % accuracy),
and every `PE_*` knob checked as its flag is (main ran `pe fluid` with PE_NUM_THREADS=0, which
`--threads 0` refuses)."""

import os
import subprocess

import pytest

from tests.cli.test_helpers import PE, REPO, pe
from tests.cli.test_saved_preprocessing import CONFIG, MODEL, ROWS


def _one_line(proc, *parts):
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for part in parts:
        assert part in proc.stderr, proc.stderr


def _table(root, label=lambda i: "ab"[i % 2]):
    (root / "m.yaml").write_text(MODEL)
    (root / "t.csv").write_text("x,text,y\n" + "".join(f'{i},"{t}",{label(i)}\n' for i, t in enumerate(ROWS)))


@pytest.mark.parametrize("pattern", ["''", "'a*'", "'(?:[a-z]+|)'", "'\\b'"])
def test_a_pattern_that_matches_the_empty_string_is_refused(tmp_path, pattern):
    _table(tmp_path)
    (tmp_path / "run.yaml").write_text(CONFIG % f", tokenizer: regex, pattern: {pattern}")
    proc = pe("train", tmp_path / "run.yaml", "--out", tmp_path / "run", "-q", cwd=tmp_path)
    _one_line(proc, "can match the empty string")
    assert not (tmp_path / "run").exists()


def test_a_label_of_one_class_is_refused(tmp_path):
    _table(tmp_path, label=lambda i: "a")
    (tmp_path / "run.yaml").write_text(CONFIG % "")
    proc = pe("train", tmp_path / "run.yaml", "--out", tmp_path / "run", cwd=tmp_path)
    _one_line(proc, "holds one class ('a') in every row")
    assert "100.00%" not in proc.stdout and not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "knob, value, said",
    [
        ("PE_NUM_THREADS", "0", "as --threads: a whole number of at least 1"),
        ("PE_NUM_THREADS", "1.5", "as --threads: a whole number of at least 1"),
        ("PE_DEVICE_THREADS", "-2", "a whole number of at least 1"),
        ("PE_STALL_SECONDS", "abc", "in seconds above 0"),
        ("PE_RENDEZVOUS_SECONDS", "inf", "the rendezvous's wait in seconds, e.g. 60"),
        ("PE_CUDA_GRAPHS", "yes", "1 (on) or 0"),
        ("PE_PLANNED_STEP", "on", "1 (on) or 0"),
        ("PE_ASYNC_WORKERS", "fork", "processes or threads"),
        ("PE_MAX_DATA_BYTES", "-1", "is not a positive integer"),
    ],
)
def test_every_knob_is_checked_as_its_flag(tmp_path, knob, value, said):
    (tmp_path / "s.py").write_text("import paddle.fluid as fluid\nprint('ran')\n")
    env = dict(os.environ, **{knob: value}, PYTHONPATH=REPO)
    env.pop("PE_DEBUG", None)
    proc = subprocess.run(PE + ["fluid", "s.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    _one_line(proc, f"pe: error: {knob}={value!r}", said)
    assert proc.returncode == 2 and "ran" not in proc.stdout
    env[knob] = {"PE_MAX_DATA_BYTES": "1000000000"}.get(knob, "2" if "THREADS" in knob else "1")
    if knob in ("PE_CUDA_GRAPHS", "PE_ASYNC_WORKERS"):
        env[knob] = {"PE_CUDA_GRAPHS": "0", "PE_ASYNC_WORKERS": "threads"}[knob]
    ok = subprocess.run(PE + ["fluid", "s.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert ok.returncode == 0 and "ran" in ok.stdout, ok.stderr
