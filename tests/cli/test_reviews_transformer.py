"""The bundled Transformer text classifier (configs/reviews_transformer.yaml: paddle.nn's 2.x layer
names, a padding mask from each review's length) through real `pe` processes: trained a few steps,
exported with `pe export --onnx`, and the ONNX model run by onnxruntime equals `pe predict` on the
held-out reviews, fed junk past each review's length (so the padding mask works in both)."""
import csv
import json

import numpy as np
import pytest

from tests.cli.test_helpers import REPO, pe

CONFIG = "configs/reviews_transformer.yaml"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("reviews_transformer")
    proc = pe("train", CONFIG, "--max-steps", "20", "data.eval.limit=60", "output.curves=false",
              "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    return root, root / "run"


def test_checkpoint_has_paddle_nn_names(trained):
    _, run = trained
    ckpt = run / "ckpt" / "step-20"
    for name in ("words.w_0", "encoder.layers.1.self_attn.q_proj.w_0", "encoder.layers.0.norm2.w_0",
                 "hidden.w_0", "logits.b_0"):
        assert (ckpt / f"{name}.npy").exists(), name
    assert json.loads((run / "eval.json").read_text())["samples"] == 60


def test_onnx_export_equals_pe_predict_on_held_out_reviews(trained):
    ort = pytest.importorskip("onnxruntime", reason="the dev extra installs onnxruntime")
    from pe_cli.data.preprocessing import Preprocessing
    from pe_cli.run.predict import read_feeds
    root, run = trained
    with open(f"{REPO}/data/reviews/reviews.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[1200:1300]          # held out: the config trains on the first 1,200
    held = root / "held.csv"
    with open(held, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["review", "price", "category"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    proc = pe("predict", CONFIG, "--checkpoint", run, "--data", held, "-o", root / "p.npz", "-q")
    assert proc.returncode == 0, proc.stderr
    want = np.load(root / "p.npz")["prob"]
    proc = pe("export", CONFIG, "-c", run, "--onnx", root / "t.onnx")
    assert proc.returncode == 0, proc.stderr
    assert "(inputs review, review_len, category, price)" in proc.stdout

    prep = Preprocessing.read(str(run / "preprocessing.json"))
    ids = prep.apply(read_feeds(str(held), ["review", "category"], prep.columns(), prep.kinds()), "t")
    review, lengths = np.array(ids["review"]), np.asarray(ids["review_len"], np.int64)
    assert lengths.min() < 16 and review.shape == (100, 16)
    review[np.arange(16)[None, :] >= lengths[:, None]] = 7      # junk past each length: masked, as pe's zeros
    price = np.array([[float(r["price"]) if r["price"] else np.nan] for r in rows], np.float32)
    feeds = {"review": review, "review_len": lengths.reshape(-1, 1),
             "category": np.asarray(ids["category"], np.int64).reshape(-1, 1), "price": price}
    logits = ort.InferenceSession(str(root / "t.onnx")).run(None, feeds)[0]
    got = np.exp(logits - logits.max(axis=1, keepdims=True))
    got /= got.sum(axis=1, keepdims=True)
    assert np.ptp(want[:, 0]) > 0.05        # the samples differ far beyond the tolerance: the comparison has teeth
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
