"""`logger: tensorboard` and curves.png at the end of `pe train` (issue 18, item 5): the event files
read back with TensorBoard's own reader hold what metrics.jsonl holds; the PNG, drawn where
output.curves asks (issue 79: not by default), opens with a real image reader; without tensorboardX
one line says what to install and no run directory is left."""

import json
import subprocess
import sys

import pytest

from tests.cli.test_helpers import REPO, pe

CONFIG = "configs/mnist_mlp.yaml"
SMALL = [
    "data.train.limit=320",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=2",
    "fetch.every=4",
    "eval.every_steps=5",
]
SCHEDULE = (
    "optimizer.learning_rate={type: exponential_decay, learning_rate: 0.05, decay_steps: 3, decay_rate: 0.5, "
    "staircase: true}"
)


def scheduled(step):
    """The learning rate of step ``step`` (1-based): the schedule's counter is step - 1."""
    return 0.05 * 0.5 ** ((step - 1) // 3)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("loggers") / "run"
    proc = pe("train", CONFIG, *SMALL, SCHEDULE, "logger=tensorboard", "output.curves=true", "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    assert f"curves: {out / 'curves.png'}" in proc.stdout
    return out


def _rows(run, phase):
    with open(run / "metrics.jsonl") as f:
        return [r for r in map(json.loads, f) if r["phase"] == phase]


def _scalars(run):
    from tensorboard.backend.event_processing import event_accumulator as accumulator

    events = accumulator.EventAccumulator(str(run / "tensorboard"))
    events.Reload()
    return {tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}


def test_tensorboard_events_hold_the_metrics_rows(run):
    scalars = _scalars(run)
    assert {"train/loss", "train/acc", "train/lr", "train/samples_per_s", "eval/loss", "eval/acc"} <= set(scalars)
    for phase in ("train", "eval"):
        rows = _rows(run, phase)
        assert len(rows) >= 2
        for name in ("loss", "acc"):
            got = scalars[f"{phase}/{name}"]
            assert [s for s, _ in got] == [r["step"] for r in rows]
            assert [v for _, v in got] == pytest.approx([r[name] for r in rows], rel=1e-6)
    assert [v for _, v in scalars["train/lr"]] == pytest.approx([r["lr"] for r in _rows(run, "train")])


def test_the_scheduled_learning_rate_is_logged_at_every_report(run):
    rows = _rows(run, "train")
    assert [r["step"] for r in rows] == [4, 8, 12, 16, 20]
    assert [r["lr"] for r in rows] == pytest.approx([scheduled(r["step"]) for r in rows], rel=1e-6)
    with open(run / "metrics.csv") as f:
        lrs = [line.split(",")[5] for line in f.read().splitlines()[1:] if line.startswith("train,")]
    assert [float(v) for v in lrs] == pytest.approx([scheduled(r["step"]) for r in rows], rel=1e-5)


def test_train_draws_curves_where_asked_and_never_loads_matplotlib_otherwise(run, tmp_path):
    import matplotlib.image as image

    pixels = image.imread(run / "curves.png")
    assert pixels.ndim == 3 and pixels.shape[0] > 300 and pixels.std() > 0.05
    assert pixels.shape[0] == 3 * 260  # loss, acc and lr: 2.6 inches a panel at 100 dpi
    # by default: no curves.png, no "curves:" line, and the whole run never imports matplotlib
    code = (
        "import atexit, sys\natexit.register(lambda: print('matplotlib loaded:', 'matplotlib' in sys.modules))\n"
        "from pe_cli.cli.main import main\nmain()"
    )
    off = subprocess.run(
        [sys.executable, "-c", code, "train", CONFIG, *SMALL, "max_steps=2", "--out", str(tmp_path / "off"), "-q"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert off.returncode == 0, off.stderr
    assert not (tmp_path / "off" / "curves.png").exists() and "curves:" not in off.stdout
    assert off.stdout.strip().endswith("matplotlib loaded: False"), off.stdout


def test_curves_asked_without_matplotlib_is_one_line_before_the_run(tmp_path):
    code = "import sys; sys.modules['matplotlib'] = None; from pe_cli.cli.main import main; main()"
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-c", code, "train", CONFIG, *SMALL, "max_steps=1", "output.curves=true", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1 and not out.exists(), proc.stderr
    assert (
        proc.stderr.strip() == "pe: error: output.curves needs matplotlib: pip install 'pe-cli[plot]' "
        "(or pip install matplotlib), or drop output.curves=true"
    ), proc.stderr


def test_without_tensorboardx_one_line_and_no_run_dir(tmp_path):
    code = "import sys; sys.modules['tensorboardX'] = None; from pe_cli.cli.main import main; main()"
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-c", code, "train", CONFIG, *SMALL, "logger=tensorboard", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "pe: error: logger: tensorboard needs tensorboardX: pip install "
        "'pe-cli[tensorboard]' (or pip install tensorboardX)"
    )
    assert not out.exists()


def test_an_unknown_logger_is_refused_with_a_suggestion(tmp_path):
    proc = pe("train", CONFIG, "logger=tensorbord", "--out", tmp_path / "run")
    assert proc.returncode != 0 and "tensorbord" in proc.stderr and "tensorboard" in proc.stderr
    assert not (tmp_path / "run").exists()
