"""`pe infer MODEL_DIR --data FILE -o OUT.npz`: a model directory PaddlePaddle saved (here the ones
Paddle 2.6.2 wrote, tests/data/paddle_models) run on a data file by the real command, without a
config; its values are Paddle's."""

from pathlib import Path

import numpy as np

from tests.cli.test_helpers import REPO, pe

MODELS = Path(REPO) / "tests" / "data" / "paddle_models"


def test_a_paddle_model_runs_from_the_command_line(tmp_path):
    """Two feeds from an .npz; the model subtracts a mean over its whole batch, so it runs as one."""
    with np.load(MODELS / "mlp_relu6_io.npz") as io:
        np.savez(tmp_path / "feeds.npz", a=io["a"], b=io["b"])
        want = io["out"]
    proc = pe(
        "infer",
        str(MODELS),
        "--model-filename",
        "mlp_relu6.pdmodel",
        "--params-filename",
        "mlp_relu6.pdiparams",
        "--data",
        str(tmp_path / "feeds.npz"),
        "-o",
        str(tmp_path / "out.npz"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "ran 4 samples through a, b" in proc.stdout
    with np.load(tmp_path / "out.npz") as out:
        (name,) = out.files
        np.testing.assert_allclose(out[name], want, rtol=1e-5, atol=1e-6)


def test_images_are_reshaped_to_the_feed_and_mistakes_are_one_line(tmp_path):
    with np.load(MODELS / "lenet_io.npz") as io:
        np.save(tmp_path / "images.npy", io["img"][:, 0])  # [N, 12, 12] for a [-1, 1, 12, 12] feed
        want = io["out"]
    args = ["--model-filename", "lenet.pdmodel", "--params-filename", "lenet.pdiparams"]
    proc = pe(
        "infer",
        str(MODELS),
        *args,
        "--data",
        str(tmp_path / "images.npy"),
        "-o",
        str(tmp_path / "o.npz"),
        "--batch-size",
        "2",
    )  # 3 samples: batches of 2 and 1
    assert proc.returncode == 0, proc.stderr
    with np.load(tmp_path / "o.npz") as out:
        np.testing.assert_allclose(out[out.files[0]], want, rtol=1e-5, atol=1e-6)
    np.save(tmp_path / "wrong.npy", np.zeros((2, 5, 5), np.float32))
    bad = pe("infer", str(MODELS), *args, "--data", str(tmp_path / "wrong.npy"), "-o", str(tmp_path / "w.npz"))
    assert (
        bad.returncode == 1
        and bad.stderr.strip() == "pe: error: feed 'img' takes samples of shape [1, 12, 12]; the data's are [5, 5]"
    )
    assert not (tmp_path / "w.npz").exists()
    missing = pe(
        "infer", str(tmp_path / "nowhere"), "--data", str(tmp_path / "images.npy"), "-o", str(tmp_path / "m.npz")
    )
    assert missing.returncode == 1 and "model directory" in missing.stderr and "Traceback" not in missing.stderr


def test_a_model_without_feed_ops_is_one_line(tmp_path):
    """A program whose feed ops were taken out has no inputs: one line, not 'internal error: StopIteration'."""
    from pe_cli.base.fluid_proto import messages

    desc = messages()["ProgramDesc"]()
    desc.ParseFromString((MODELS / "mlp_relu6.pdmodel").read_bytes())
    ops = [op for op in desc.blocks[0].ops if op.type != "feed"]
    del desc.blocks[0].ops[:]
    desc.blocks[0].ops.extend(ops)
    (tmp_path / "m.pdmodel").write_bytes(desc.SerializeToString())
    (tmp_path / "m.pdiparams").write_bytes((MODELS / "mlp_relu6.pdiparams").read_bytes())
    with np.load(MODELS / "mlp_relu6_io.npz") as io:
        np.savez(tmp_path / "feeds.npz", a=io["a"], b=io["b"])
    proc = pe(
        "infer",
        str(tmp_path),
        "--model-filename",
        "m.pdmodel",
        "--params-filename",
        "m.pdiparams",
        "--data",
        str(tmp_path / "feeds.npz"),
        "-o",
        str(tmp_path / "out.npz"),
    )
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "its program has no feed targets (no feed op)" in proc.stderr and not (tmp_path / "out.npz").exists()
