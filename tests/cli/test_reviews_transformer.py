"""The bundled Transformer text classifier (configs/reviews_transformer.yaml: paddle.nn's 2.x layer
names, a padding mask from each review's length) through real `pe` processes: trained a few steps,
exported with `pe export --onnx`, and the ONNX model run by onnxruntime on the held-out reviews' raw
text (tokenized, padded to 16 ids and review_len filled in the graph) equals `pe predict`."""

import csv
import json

import numpy as np
import pytest

from tests.cli.test_helpers import REPO, pe

CONFIG = "configs/reviews_transformer.yaml"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("reviews_transformer")
    proc = pe(
        "train", CONFIG, "--max-steps", "20", "data.eval.limit=60", "output.curves=false", "--out", root / "run", "-q"
    )
    assert proc.returncode == 0, proc.stderr
    return root, root / "run"


def test_checkpoint_has_paddle_nn_names(trained):
    _, run = trained
    ckpt = run / "ckpt" / "step-20"
    for name in (
        "words.w_0",
        "encoder.layers.1.self_attn.q_proj.w_0",
        "encoder.layers.0.norm2.w_0",
        "hidden.w_0",
        "logits.b_0",
    ):
        assert (ckpt / f"{name}.npy").exists(), name
    assert json.loads((run / "eval.json").read_text())["samples"] == 60


def test_onnx_export_equals_pe_predict_on_held_out_reviews(trained):
    import onnxruntime as ort

    root, run = trained
    with open(f"{REPO}/data/reviews/reviews.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[1200:1300]  # held out: the config trains on the first 1,200
    held = root / "held.csv"
    rows[0]["review"], rows[1]["review"] = "", "GREAT " * 30  # empty (one <pad>) and past max_length (16)
    with open(held, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["review", "price", "category"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    proc = pe("predict", CONFIG, "--checkpoint", run, "--data", held, "-o", root / "p.npz", "-q")
    assert proc.returncode == 0, proc.stderr
    want = np.load(root / "p.npz")
    proc = pe("export", CONFIG, "-c", run, "--onnx", root / "t.onnx")
    assert proc.returncode == 0, proc.stderr
    assert "(inputs review, category, price)" in proc.stdout  # review_len: filled in the graph

    feeds = {
        "review": np.array([[r["review"]] for r in rows], dtype=object),
        "category": np.array([[r["category"]] for r in rows], dtype=object),
        "price": np.array([[float(r["price"]) if r["price"] else np.nan] for r in rows], np.float32),
    }
    session = ort.InferenceSession(str(root / "t.onnx"))
    got = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    assert np.ptp(want["prob"][:, 0]) > 0.05  # the samples differ far beyond the tolerance: the comparison has teeth
    np.testing.assert_allclose(got["prob"], want["prob"], rtol=0, atol=1e-5)
    assert got["class_name"].tolist() == want["class_name"].tolist()
