"""Raw data in, predictions out (issue 56): data.preprocessing fitted by `pe train`, saved with the
run and applied by `pe predict`, `pe eval`, `pe infer` and `pe export`, through real `pe` processes
on the bundled examples (data/reviews, data/mnist_png), trained a few steps."""

import csv
import json

import numpy as np
import pytest

from tests.cli.test_helpers import REPO, pe

SHIPPING = "configs/reviews_shipping.yaml"
SENTIMENT = "configs/reviews_sentiment.yaml"
PNG = "configs/mnist_png.yaml"
SMALL = ["epochs=1", "data.train.limit=256", "data.eval.limit=64", "output.curves=false"]
REVIEWS = f"{REPO}/data/reviews/reviews.csv"


def _rows(n=120):
    with open(REVIEWS, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))[:n]


def _write_csv(path, rows, names):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, names, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def _train(config, out, *extra):
    proc = pe("train", config, *SMALL, *extra, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def shipping(tmp_path_factory):
    root = tmp_path_factory.mktemp("shipping")
    return root, _train(SHIPPING, root / "run")


def _predict(config, run, data, out, *extra):
    proc = pe("predict", config, "--checkpoint", run, "--data", data, "-o", out, "-q", *extra)
    assert proc.returncode == 0, proc.stderr
    return np.load(out) if str(out).endswith(".npz") else list(csv.DictReader(open(out)))


def test_reordered_and_extra_columns_predict_the_same(shipping):
    root, run = shipping
    rows = _rows()
    _write_csv(root / "original.csv", rows, ["weight_kg", "price", "distance_km"])
    for row in rows:
        row["note"] = "an extra column, ignored"
    _write_csv(root / "shuffled.csv", rows, ["note", "distance_km", "id", "price", "weight_kg", "category"])
    original = _predict(SHIPPING, run, root / "original.csv", root / "a.npz")["value"]
    shuffled = _predict(SHIPPING, run, root / "shuffled.csv", root / "b.npz")["value"]
    assert original.shape == (120, 1) and np.array_equal(original, shuffled)
    # the same rows as JSON Lines and as TSV: the same values
    (root / "rows.jsonl").write_text(
        "".join(
            json.dumps(
                {
                    "distance_km": float(r["distance_km"]),
                    "price": float(r["price"]) if r["price"] else None,
                    "weight_kg": float(r["weight_kg"]),
                }
            )
            + "\n"
            for r in rows
        )
    )
    assert np.array_equal(_predict(SHIPPING, run, root / "rows.jsonl", root / "c.npz")["value"], original)
    missing = root / "missing.csv"
    _write_csv(missing, rows, ["weight_kg", "price"])
    proc = pe("predict", SHIPPING, "--checkpoint", run, "--data", missing, "-q")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert f"{missing} has no column 'distance_km' for feed 'distance'" in proc.stderr


def test_onnx_takes_raw_columns_and_equals_pe_predict(shipping):
    import onnxruntime as ort

    root, run = shipping
    rows = _rows()
    _write_csv(root / "raw.csv", rows, ["weight_kg", "price", "distance_km"])
    want = _predict(SHIPPING, run, root / "raw.csv", root / "raw.npz")["value"]
    proc = pe("export", SHIPPING, "-c", run, "--onnx", root / "ship.onnx")
    assert proc.returncode == 0, proc.stderr
    assert "preprocessing in the graph: size, distance" in proc.stdout
    assert "in the graph (the input takes raw values): size, distance" in (root / "ship.preprocessing.txt").read_text()
    number = lambda v: float(v) if v else np.nan  # noqa: E731 -- an empty price is a missing value
    size = np.array([[number(r["weight_kg"]), number(r["price"])] for r in rows], np.float32)
    distance = np.array([[number(r["distance_km"])] for r in rows], np.float32)
    assert np.isnan(size).any()  # the fill is in the graph too
    got = ort.InferenceSession(str(root / "ship.onnx")).run(None, {"size": size, "distance": distance})[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


def test_the_statistics_are_the_training_splits(shipping):
    _, run = shipping
    saved = json.loads((run / "preprocessing.json").read_text())
    assert saved["version"] == 1 and "256 samples" in saved["fitted_on"]
    train = _rows(256)
    weights = np.array([float(r["weight_kg"]) for r in train], np.float32)
    assert saved["feeds"]["size"]["shift"][0] == pytest.approx(weights.mean(dtype=np.float64), rel=1e-6)
    logs = np.log(np.array([float(r["distance_km"]) for r in train], np.float32) + 1)
    assert saved["feeds"]["distance"]["shift"] == [0.0] and saved["feeds"]["distance"]["scaling"] == "log"
    assert logs.min() > 0


@pytest.fixture(scope="module")
def sentiment(tmp_path_factory):
    root = tmp_path_factory.mktemp("sentiment")
    return root, _train(SENTIMENT, root / "run", "epochs=4")


def test_raw_text_in_class_names_out(sentiment):
    tmp_path, run = sentiment
    saved = json.loads((run / "preprocessing.json").read_text())["feeds"]
    assert saved["sentiment"]["classes"] == ["negative", "positive"]
    assert saved["review"]["vocabulary"][:2] == ["<pad>", "<unknown>"] and len(saved["review"]["vocabulary"]) <= 200
    rows = _rows(60)
    _write_csv(tmp_path / "new.csv", rows, ["review", "price", "category"])  # no sentiment column
    predicted = _predict(SENTIMENT, run, tmp_path / "new.csv", tmp_path / "p.csv")
    assert len(predicted) == 60 and set(predicted[0]) == {
        "sentiment",
        "sentiment_id",
        "sentiment_prob_negative",
        "sentiment_prob_positive",
    }
    names = [p["sentiment"] for p in predicted]
    assert all(saved["sentiment"]["classes"][int(p["sentiment_id"])] == p["sentiment"] for p in predicted)
    assert np.mean([n == r["sentiment"] for n, r in zip(names, rows)]) > 0.6
    only = _predict(SENTIMENT, run, tmp_path / "new.csv", tmp_path / "q.csv", "--no-probabilities")
    assert set(only[0]) == {"sentiment", "sentiment_id"} and [p["sentiment"] for p in only] == names


def test_the_text_model_exports_taking_raw_strings_and_numbers(sentiment):
    """The exported model takes the raw review text (lowercased, split on whitespace, cut at
    max_length and looked up in its vocabulary in the graph; a ragged sequence), the category's
    string and the raw price (its standardisation and fill are nodes), and gives pe predict's
    probabilities, classes and class names: an empty review, a review past max_length, capitals,
    tabs and a category the training split lacked included."""
    import onnxruntime as ort

    root, run = sentiment
    rows = _rows(40)
    rows[0]["review"], rows[1]["review"] = "", "  Love\tthe PRODUCT  " + " perfect" * 20
    rows[2]["category"] = "no-such-category"
    _write_csv(root / "text.csv", rows, ["review", "price", "category"])
    want = _predict(SENTIMENT, run, root / "text.csv", root / "text.npz")
    proc = pe("export", SENTIMENT, "-c", run, "--onnx", root / "text.onnx")
    assert proc.returncode == 0, proc.stderr
    assert "(inputs review, category, price)" in proc.stdout
    assert (
        "in the graph (the input takes raw values): review, category, price"
        in (root / "text.preprocessing.txt").read_text()
    )
    feeds = {
        "review": np.array([[r["review"]] for r in rows], dtype=object),
        "category": np.array([[r["category"]] for r in rows], dtype=object),
        "price": np.array([[float(r["price"]) if r["price"] else np.nan] for r in rows], np.float32),
    }
    session = ort.InferenceSession(str(root / "text.onnx"))
    got = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    np.testing.assert_allclose(got["prob"], want["prob"], rtol=0, atol=1e-5)
    assert got["class"].tolist() == want["class"].tolist()
    assert got["class_name"].tolist() == want["class_name"].tolist()


def test_raw_image_files_in_class_names_out(tmp_path):
    run = _train(PNG, tmp_path / "run", "epochs=2")
    predicted = _predict(PNG, run, f"{REPO}/data/mnist_png/eval", tmp_path / "p.npz")
    names = predicted["class_name"]
    assert names.shape == (100,) and set(names) <= set("0123456789")
    truth = [f.split("/")[0] for f in predicted["path"]]  # eval/<digit>/<index>.png
    assert sorted(truth) == truth and len(set(predicted["path"])) == 100
    accuracy = np.mean(names == truth)
    evaluated = pe("eval", PNG, "--checkpoint", run, "--out", tmp_path / "e.json")
    assert evaluated.returncode == 0, evaluated.stderr
    assert json.loads((tmp_path / "e.json").read_text())["metrics"]["acc"] == pytest.approx(accuracy, abs=1e-6)
    exported = pe("export", PNG, "-c", run, "--inference-dir", tmp_path / "model")
    assert exported.returncode == 0, exported.stderr
    inferred = pe("infer", tmp_path / "model", "--data", f"{REPO}/data/mnist_png/eval", "-o", tmp_path / "i.npz")
    assert inferred.returncode == 0, inferred.stderr
    with np.load(tmp_path / "i.npz") as z:
        assert (z["logits.tmp_1"].argmax(axis=1) == predicted["class"]).all()
    _onnx_on_decoded_pixels(run, predicted, tmp_path)


def _onnx_on_decoded_pixels(run, predicted, tmp_path):
    """The ONNX export takes the pixel values as decoded (mode L, 28x28, 0..255): the config's scale,
    mean and std are in the graph; its prob and class_name are pe predict's."""
    import onnxruntime as ort
    from pe_cli.data.images import load_images

    exported = pe("export", PNG, "-c", run, "--onnx", tmp_path / "png.onnx")
    assert exported.returncode == 0, exported.stderr
    pixels = load_images([f"{REPO}/data/mnist_png/eval/{p}" for p in predicted["path"]], [28, 28], None, "L", 1)
    assert pixels.shape == (100, 1, 28, 28) and pixels.max() > 200
    session = ort.InferenceSession(str(tmp_path / "png.onnx"))
    prob, names = session.run(["prob", "class_name"], {"image": pixels})
    np.testing.assert_allclose(prob, predicted["prob"], rtol=0, atol=1e-5)
    assert names.tolist() == predicted["class_name"].tolist()


def test_an_image_config_without_pillow_is_one_line(tmp_path):
    blocker = tmp_path / "nopil" / "PIL"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('blocked for this test')\n")
    proc = pe("train", PNG, "--out", tmp_path / "run", env={"PYTHONPATH": f"{tmp_path / 'nopil'}:{REPO}"})
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "needs Pillow: pip install 'pe-cli[images]'" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()
