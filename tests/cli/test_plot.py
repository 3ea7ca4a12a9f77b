"""`pe plot` (issue 18, item 5): a run's curves as a PNG that a real image reader opens; without
matplotlib, one line saying how to install it."""

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


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "run"
    proc = pe("train", CONFIG, *SMALL, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    return out


def test_plot_writes_a_png(run, tmp_path):
    import matplotlib.image as image

    proc = pe("plot", run)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"wrote {run / 'curves.png'}"
    pixels = image.imread(run / "curves.png")
    assert pixels.ndim == 3 and pixels.shape[0] > 300 and pixels.std() > 0.05  # two panels, drawn
    one = pe("plot", run, "--metric", "acc", "-o", tmp_path / "acc.png")
    assert one.returncode == 0 and image.imread(tmp_path / "acc.png").shape[0] < pixels.shape[0]
    bad = pe("plot", run, "--metric", "accuracy")
    assert bad.returncode == 1 and "not in" in bad.stderr and "acc" in bad.stderr


def test_without_matplotlib_one_line_says_how_to_install(run):
    code = "import sys; sys.modules['matplotlib'] = None; from pe_cli.cli.main import main; main()"
    proc = subprocess.run(
        [sys.executable, "-c", code, "plot", str(run)], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1
    assert (
        proc.stderr.strip()
        == "pe: error: pe plot needs matplotlib: pip install 'pe-cli[plot]' (or pip install matplotlib)"
    )


def test_a_column_without_values_gets_no_empty_panel(tmp_path):
    """A run whose rows carry no learning rate (pserver mode: the schedule runs on the servers)."""
    import matplotlib.image as image
    from pe_cli.run.plot import plot

    rows = [{"phase": "train", "step": s, "epoch": 1, "loss": 1.0 / s, "lr": None} for s in (1, 2, 3)]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert image.imread(plot(tmp_path)).shape[0] == 260  # the loss alone: one panel
