"""A checkpoint is checked before pe names it as good (issue 57, item 3): each checkpoint has a
manifest (sizes, sha256); a damaged newest checkpoint is one line naming the intact one before it,
from --resume (the "already finished" path too), pe eval and pe export, quickly and without a hang;
pe infer checks the manifest pe export writes into an inference directory.
A checkpoint written before manifests existed stays loadable. Real `pe` processes."""

import json
import os
import shutil
import time

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.config import load_config
from pe_cli.export.inference_dir import export_inference_dir
from pe_cli.io.manifest import MANIFEST, manifest_problem
from pe_cli.run.infer import infer
from pe_cli.run.inference import load_inference
from tests.cli.test_helpers import pe

CONFIG = "configs/mnist_mlp.yaml"
SMALL = [
    "data.train.limit=128",
    "data.eval.limit=64",
    "data.batch_size=32",
    "epochs=2",
    "output.curves=false",
    "output.graphs=[]",
]


@pytest.fixture(scope="module")
def run8(tmp_path_factory):
    """A finished 8-step run with checkpoints at steps 4 and 8 (one per epoch)."""
    out = tmp_path_factory.mktemp("manifest") / "run"
    proc = pe("train", CONFIG, *SMALL, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out / "ckpt")) == ["last", "step-4", "step-8"]
    return out


def _truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def _pickle(path):
    np.save(path, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)


def _float64(path):
    np.save(path, np.load(path).astype(np.float64))


def _fifo(path):
    os.unlink(path)
    os.mkfifo(path)


DAMAGES = {"truncated": _truncate, "pickle": _pickle, "wrong dtype": _float64, "fifo": _fifo, "missing": os.unlink}
# each damage reached through another command that names the checkpoint as good
COMMANDS = {
    "truncated": lambda run, tmp: ("train", CONFIG, *SMALL, "--resume", run, "-q"),  # "already finished"
    "pickle": lambda run, tmp: ("eval", CONFIG, *SMALL, "--checkpoint", run),
    "wrong dtype": lambda run, tmp: (
        "export",
        CONFIG,
        *SMALL,
        "--checkpoint",
        run / "ckpt" / "last",
        "--onnx",
        tmp / "m.onnx",
    ),
    "fifo": lambda run, tmp: ("train", CONFIG, *SMALL, "--resume", run / "ckpt" / "step-8", "-q"),
    "missing": lambda run, tmp: ("train", CONFIG, *SMALL, "epochs=3", "-q", "--out", run, "--resume"),
}


def test_the_manifest_lists_every_file_with_its_size_and_sha256(run8):
    ckpt = run8 / "ckpt" / "step-8"
    files = json.loads((ckpt / MANIFEST).read_text())["files"]
    assert sorted(files) == sorted(n for n in os.listdir(ckpt) if n != MANIFEST)
    assert "trainer_state.json" in files and "fc1.w_0.npy" in files
    assert files["fc1.w_0.npy"]["bytes"] == os.path.getsize(ckpt / "fc1.w_0.npy")
    assert manifest_problem(str(ckpt)) is None


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_last_checkpoint_names_the_previous_good_one(run8, tmp_path, damage):
    run = tmp_path / "run"
    shutil.copytree(run8, run)
    DAMAGES[damage](str(run / "ckpt" / "step-8" / "fc1.w_0.npy"))
    start = time.monotonic()
    proc = pe(*COMMANDS[damage](run, tmp_path), timeout=20)
    took = time.monotonic() - start
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "nothing to do" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"pe: error: {run}/ckpt/step-8 is damaged (fc1.w_0.npy")
    assert lines[0].endswith(f"resume from {run}/ckpt/step-4: pe train CONFIG --resume {run}/ckpt/step-4")
    assert took < 10, took  # no hang on a FIFO; on an idle machine it is about 3 s (the start of pe)


def test_a_checkpoint_without_manifest_stays_loadable_and_checked(run8, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(run8, run)
    for step in (4, 8):
        os.unlink(run / "ckpt" / f"step-{step}" / MANIFEST)
    ok = pe("eval", CONFIG, *SMALL, "--checkpoint", run)
    assert ok.returncode == 0 and "acc" in ok.stdout, ok.stderr
    _float64(str(run / "ckpt" / "step-8" / "fc1.w_0.npy"))  # no manifest: the program's checks find it
    proc = pe("train", CONFIG, *SMALL, "--resume", run, "-q")
    assert proc.returncode == 1 and "nothing to do" not in proc.stdout
    assert "'fc1.w_0'" in proc.stderr and "float64, the program expects float32" in proc.stderr
    _truncate(str(run / "ckpt" / "step-8" / "fc1.w_0.npy"))  # and the headers of its .npy files
    assert "fc1.w_0.npy:" in manifest_problem(str(run / "ckpt" / "step-8"))


def test_pe_infer_checks_the_manifest_of_an_exported_model(run8, tmp_path):
    model = tmp_path / "model"
    export_inference_dir(load_inference(load_config(CONFIG, SMALL), str(run8)), str(model))
    assert manifest_problem(str(model)) is None and (model / "__model__").is_file()
    _truncate(str(model / "fc1.w_0"))
    with pytest.raises(PeError, match=r"model directory .*model is damaged \(fc1\.w_0: \d+ bytes, manifest says"):
        infer(str(model), "unread.npy", str(tmp_path / "out.npz"))
