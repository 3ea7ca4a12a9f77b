"""Bounds before parsing, and records that fail closed (issue 88, items 2 and 7), through real `pe`
processes: a run's split.json is bounded by the rows it can name before it is parsed (main parsed a
160 MB one whole: 1.1 GB) and takes whole row numbers only (main cast 1.5 to row 1); trainer_state.json
and overrides.json are bounded (1 MiB) and a directory is refused; a resume whose run's config.yaml
cannot be read is refused naming it (main skipped the preprocessing check)."""

import json
import os

import pytest

from tests.cli.test_data_split import _setup
from tests.cli.test_helpers import pe, snapshot


@pytest.fixture(scope="module")
def split_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("bounds")
    _setup(root)
    proc = pe("train", "run.yaml", "--out", "run", "-q", "--max-steps", "1", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root


def _copy(root, tmp_path):
    _setup(tmp_path)
    os.system(f"cp -a {root / 'run'} {tmp_path / 'run'}")
    return tmp_path / "run"


def _refused(proc, *parts):
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode != 0 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    for part in parts:
        assert part in lines[0], lines[0]


def test_a_split_record_is_bounded_before_it_is_parsed(split_run, tmp_path):
    run = _copy(split_run, tmp_path)
    record = json.loads((run / "split.json").read_text())
    record["eval_rows"] = list(range(1_000_000))  # 9.9 MB: far more than 30 rows can need
    (run / "split.json").write_text(json.dumps(record, indent=1))
    proc = pe("eval", "run.yaml", "--checkpoint", "run", cwd=tmp_path)
    _refused(proc, "run/split.json is 9,889,211 bytes, above the 4,396 a split of 30 rows takes")


def test_a_split_row_that_is_not_a_whole_number_is_refused(split_run, tmp_path):
    run = _copy(split_run, tmp_path)
    record = json.loads((run / "split.json").read_text())
    record["eval_rows"][0] += 0.5
    (run / "split.json").write_text(json.dumps(record, indent=1))
    proc = pe("eval", "run.yaml", "--checkpoint", "run", cwd=tmp_path)
    _refused(proc, "split.json: not a readable split record (the row numbers are not lists of whole numbers)")


@pytest.mark.parametrize(
    "name, damage, said",
    [
        ("ckpt/step-1/trainer_state.json", "huge", "above the 1,048,576 a record may have"),
        ("overrides.json", "huge", "above the 1,048,576 a record may have"),
        ("overrides.json", "directory", "is a directory, not a regular file"),
        ("config.yaml", "model: [unclosed\n", "is not YAML pe wrote"),
    ],
)
def test_a_record_a_resume_reads_is_bounded_and_fails_closed(split_run, tmp_path, name, damage, said):
    run = _copy(split_run, tmp_path)
    path = run / name
    if damage == "huge":
        path.write_text(path.read_text().rstrip() + " " * (1 << 20) + "\n")  # valid JSON, 1 MiB of spaces
    elif damage == "directory":
        path.unlink()
        path.mkdir()
    else:
        path.write_text(damage)
    before = snapshot(run)
    proc = pe("train", "run.yaml", "--resume", "run", "-q", cwd=tmp_path)
    _refused(proc, os.path.basename(name), said)
    assert snapshot(run) == before


@pytest.mark.parametrize("name", ["ckpt/step-1/trainer_state.json", "split.json", "ckpt/step-1/manifest.json"])
def test_a_record_with_a_key_twice_is_refused(split_run, tmp_path, name):
    """JSON keeps the last of a key given twice; a record pe reads back refuses it (main read on)."""
    run = _copy(split_run, tmp_path)
    path = run / name
    text = path.read_text().rstrip()
    key = {"trainer_state.json": "step", "split.json": "seed", "manifest.json": "manifest"}[path.name]
    path.write_text(text[:-1] + f', "{key}": {json.dumps(json.loads(text)[key])}}}\n')
    before = snapshot(run)
    proc = pe("train", "run.yaml", "--resume", "run", "-q", cwd=tmp_path)
    _refused(proc, f"the key '{key}' appears twice in one object")
    assert snapshot(run) == before
