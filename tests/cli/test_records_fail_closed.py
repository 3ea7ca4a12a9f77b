"""A run record pe cannot read fails closed (issue 88, item 2): when a run's config.yaml or the
model file it names is broken YAML, holds a Python tag, is not a mapping, is a directory, is missing
or is over its bound, `pe predict`, `pe eval` and `pe export` refuse in one line naming the file,
where main skipped the "the checkpoint is its run's" check and ran CONFIG's model (rc 0). Real `pe`
processes on a small MNIST run."""

import shutil

import numpy as np
import pytest

from pe_cli.data.idx import load_mnist
from tests.cli.test_helpers import REPO, pe

CONFIG = "configs/mnist_mlp.yaml"
SMALL = ["data.train.limit=64", "data.eval.limit=64", "data.batch_size=32", "epochs=1", "output.curves=false"]
SIGMOID = "model.layers.fc1.act=sigmoid"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("fail_closed")
    proc = pe("train", CONFIG, *SMALL, SIGMOID, "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    images, _ = load_mnist(f"{REPO}/data/mnist", "eval")
    np.save(root / "images.npy", images[:8])
    return root


def _damage(run, name, how):
    path = run / name
    if how == "directory":
        path.unlink()
        path.mkdir()
    elif how == "missing":
        path.unlink()
    elif how == "huge":
        path.write_text(path.read_text() + "#" * (1 << 20) + "\n")
    else:
        path.write_text(how)


@pytest.mark.parametrize(
    "name, how, said",
    [
        ("config.yaml", "model: [unclosed\n", "is not YAML pe wrote"),
        ("config.yaml", "model: !!python/object/apply:os.system ['true']\n", "is not YAML pe wrote"),
        ("config.yaml", "- a list\n", "holds list, not a mapping"),
        ("config.yaml", "directory", "is a directory, not a regular file"),
        ("config.yaml", "huge", "above the 1,048,576 a record may have"),
        ("model.yaml", "layers: {oops\n", "is not YAML pe wrote"),
        ("model.yaml", "missing", "is missing"),
    ],
)
@pytest.mark.parametrize("command", ["predict", "eval", "export"])
def test_a_record_that_cannot_be_read_refuses_the_command(trained, tmp_path, name, how, said, command):
    run = tmp_path / "run"
    shutil.copytree(trained / "run", run)
    _damage(run, name, how)
    args = {
        "predict": ["--data", trained / "images.npy", "-o", tmp_path / "p.npz"],
        "eval": [*SMALL, "-o", tmp_path / "e.json"],
        "export": ["--inference-dir", tmp_path / "inf"],
    }[command]
    proc = pe(command, CONFIG, "--checkpoint", run, *args)  # CONFIG's relu: not the run's sigmoid
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert f"the run record {run / name} " in lines[0] and said in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # nothing written
