"""Messages (issue 88, item 5), through real `pe` processes: `pe launch --pservers 1000000` speaks of
the process limit (main: of ports); a `ckpt/last` naming no checkpoint is said, once, before the
newest complete one is taken (main took it without a word); `pe plot` of a metrics.jsonl holding a
step that is text or NaN, a list, a line that is not JSON skips them with one warning and their
count (main: `internal error: ValueError: arange`)."""

import json
import shutil

import pytest

from tests.cli.test_helpers import pe

CONFIG = "configs/mnist_logreg.yaml"
SMALL = [
    "data.train.limit=64",
    "data.eval.limit=64",
    "data.batch_size=32",
    "epochs=2",
    "fetch.every=1",
    "output.curves=false",
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("messages") / "run"
    proc = pe("train", CONFIG, *SMALL, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    assert (out / "ckpt" / "last").read_text().strip() == "step-4"
    return out


def test_launch_with_a_million_servers_names_the_process_limit(tmp_path):
    (tmp_path / "train.py").write_text("print('ran')\n")
    proc = pe("launch", "--pservers", "1000000", tmp_path / "train.py")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert "the process count (pe launch's --trainers + --pservers) is 1,000,001" in lines[0]
    assert "PE_MAX_PROCESSES" in lines[0] and "port" not in lines[0]


@pytest.mark.parametrize("content", ["step-99\n", "../../elsewhere\n", b"\xff\xfe\n"])
def test_a_last_naming_no_checkpoint_is_said(run, tmp_path, content):
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    last = copy / "ckpt" / "last"
    last.write_bytes(content if isinstance(content, bytes) else content.encode())
    proc = pe("train", CONFIG, "--resume", copy, "epochs=3", "-q")
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "names no complete checkpoint" in line]
    assert len(warned) == 1 and f"{last} names no complete checkpoint" in warned[0], proc.stderr
    assert f"taking the newest complete one, {copy / 'ckpt' / 'step-4'}" in warned[0]
    assert last.read_text().strip() == "step-6"  # resumed from step-4, on to epoch 3


def test_plot_skips_lines_that_are_not_rows_with_their_count(run, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    rows = (copy / "metrics.jsonl").read_text()
    bad = [
        json.dumps({"phase": "train", "step": "ten", "loss": 1.0}),
        '{"phase": "train", "step": NaN, "loss": 1}',
        json.dumps([1, 2, 3]),
        "not json at all",
        json.dumps({"phase": "train", "step": 9, "loss": [1, 2]}),
    ]
    (copy / "metrics.jsonl").write_text(rows + "\n".join(bad) + "\n")
    proc = pe("plot", copy, "-o", tmp_path / "c.png")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "skipped 4 line(s) that are not rows pe wrote" in lines[0], proc.stderr
    assert "the step is 'ten'" in lines[0] and "1 value(s) that are not finite numbers" in lines[0]
    assert (tmp_path / "c.png").stat().st_size > 1000
    (copy / "metrics.jsonl").write_text("\n".join(bad[:4]) + "\n")
    proc = pe("plot", copy, "-o", tmp_path / "d.png")
    assert proc.returncode == 1 and "has no rows yet" in proc.stderr and "internal error" not in proc.stderr


def test_warnings_are_one_line_per_kind_with_a_count(tmp_path):
    """100,000 warnings raised at one place (as a model file's 100,000 ignored attributes were: 31 MB of
    stderr) are the first one and a count."""
    import os
    import subprocess
    from tests.cli.test_helpers import PE, REPO

    (tmp_path / "s.py").write_text(
        "import warnings\nimport paddle.fluid as fluid\nfor i in range(100000):\n"
        "    warnings.warn(f'attribute a{i} ignored')\nwarnings.warn('another kind')\n"
        "print('ran')\n"
    )
    env = dict(os.environ, PYTHONPATH=REPO)
    env.pop("PE_DEBUG", None)
    proc = subprocess.run(PE + ["fluid", "s.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and proc.stdout == "ran\n", proc.stderr[-2000:]
    assert len(proc.stderr) < 1000, len(proc.stderr)
    assert "UserWarning: attribute a0 ignored" in proc.stderr and "attribute a1 ignored" not in proc.stderr
    assert "UserWarning: another kind" in proc.stderr
    assert "pe: warning: 99,999 more UserWarnings like the one above (s.py:4) not shown" in proc.stderr
