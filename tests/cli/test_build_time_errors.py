"""Mistakes of a model file or run config that used to show only at run time, or at the wrong place
(issue 87), each now one line at its key before anything trains: a regression head of the wrong
width (trained every epoch, then 'cannot reshape array'); one row per token meeting one row per
sample (numpy's broadcast error or an IndexError at step 1); an image feed without size ("no feed
named 'image'"); a bad reference whose "valid:" list named the layer itself; a misspelt column of
data.preprocessing.<feed>.columns (reported at data.train's line); cross_entropy over an fc's
logits (failed at step 1). Real ``pe`` processes on generated tables."""

import csv
import random

import pytest

from tests.cli.test_helpers import REPO, pe


def _table(path, rows=120):
    rng = random.Random(7)
    words = ["good", "bad", "fine", "late", "great", "broken", "ok"]
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["temp_min", "humidity", "note", "kind", "temp_max"])
        for i in range(rows):
            t, h = rng.uniform(0, 20), rng.uniform(30, 90)
            writer.writerow(
                [
                    f"{t:.2f}",
                    f"{h:.1f}",
                    " ".join(rng.choice(words) for _ in range(1 + i % 5)),
                    "ab"[i % 2],
                    f"{t + 8 - 0.05 * h:.2f}",
                ]
            )


def _run(tmp_path, model, preprocessing, command="train"):
    _table(tmp_path / "t.csv")
    (tmp_path / "m.yaml").write_text(model)
    (tmp_path / "c.yaml").write_text(
        "model: m.yaml\nepochs: 1\noptimizer: {type: Adam, learning_rate: 0.01}\n"
        "data:\n  train: {format: csv, path: t.csv}\n  split: {eval: 0.25}\n"
        "  preprocessing:\n" + "".join(f"    {line}\n" for line in preprocessing)
    )
    args = ("train", "c.yaml", "--out", "run", "-q") if command == "train" else (command, "c.yaml")
    proc = pe(*args, cwd=tmp_path)
    err = proc.stderr.strip()
    assert proc.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, proc.stderr
    assert not (tmp_path / "run").exists()
    return err


NUMBERS = ["x: {kind: numeric, columns: [temp_min, humidity]}", "temp_max: {kind: numeric}"]
TEXT = ["note: {kind: text, tokenizer: whitespace, max_length: 8}", "kind: {kind: label}"]


def test_a_regression_head_of_the_wrong_width(tmp_path):
    err = _run(
        tmp_path,
        """\
layers:
  - hidden: {type: fc, input: x, size: 8, act: relu}
  - pred: {type: fc, input: hidden, size: 3}
  - err: {type: square_error_cost, input: pred, label: temp_max}
  - loss: {type: mean, x: err}
loss: loss
""",
        NUMBERS,
    )
    assert err.startswith(
        "m.yaml:4:10: layers[2].err: the prediction 'pred' has 3 values per sample but the target 'temp_max' has 1"
    ), err
    assert err.endswith("write size: 1 in 'pred' (m.yaml:3 layers[1] pred)"), err


@pytest.mark.parametrize(
    "layers, at",
    [
        (
            "  - logits: {type: fc, input: words, size: auto}\nloss: {type: softmax_with_cross_entropy, logits: logits, "
            "label: kind}\n",
            "m.yaml:4:7: loss:",
        ),
        (
            "  - joined: {type: concat, input: [words, x], axis: 1}\n  - logits: {type: fc, input: joined, size: auto}\n"
            "loss: {type: softmax_with_cross_entropy, logits: logits, label: kind}\n",
            "m.yaml:3:13: layers[1].joined:",
        ),
    ],
    ids=["fc-to-the-loss", "concat-with-a-number"],
)
def test_tokens_meeting_samples_are_told_to_pool(tmp_path, layers, at):
    err = _run(
        tmp_path,
        "layers:\n  - words: {type: embedding, input: note, size: [auto, 8]}\n" + layers,
        TEXT + ["x: {kind: numeric, columns: [temp_min]}"],
    )
    assert err.startswith(at) and "holds one row per token of the text feed 'note'" in err, err
    assert ("'kind' holds one row per sample" if "loss" in at else "'x' holds one row per sample") in err, err
    assert "pool the tokens first: add '- words_pooled: {type: sequence_pool, input: words, pool_type: average}'" in err


def test_an_image_feed_without_size(tmp_path):
    (tmp_path / "m.yaml").write_text(
        "layers: [out: {type: fc, input: image, size: auto}]\n"
        "loss: {type: softmax_with_cross_entropy, logits: out, label: label}\n"
    )
    (tmp_path / "c.yaml").write_text(
        f"model: m.yaml\ndata:\n  train: {{format: folders, path: {REPO}/data/mnist_png/train}}\n"
        "  preprocessing:\n    image: {kind: image, mode: L}\n    label: {kind: label}\n"
    )
    proc = pe("summary", "c.yaml", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == (
        "c.yaml:5:12: data.preprocessing.image: the image feed 'image' has no shape: its height and width come from "
        "size (or crop), which it does not give; add size: [28, 28] (your images' height and width) to "
        "data.preprocessing.image, or declare feeds.image in the model file"
    ), proc.stderr


def test_a_bad_reference_does_not_suggest_the_layer_itself(tmp_path):
    err = _run(
        tmp_path,
        "layers:\n  - hidden: {type: fc, input: x, size: 4}\n  - pred: {type: fc, input: pret, size: 1}\n"
        "loss: {type: square_error_cost, input: pred, label: temp_max}\n",
        NUMBERS,
        command="summary",
    )
    assert err == "m.yaml:3:29: layers[1].pred.input: no feed or earlier layer named 'pret'; valid: hidden, temp_max, x"


def test_a_misspelt_preprocessing_column_is_told_at_its_key(tmp_path):
    err = _run(
        tmp_path,
        "layers: [pred: {type: fc, input: x, size: 1}]\n"
        "loss: {type: square_error_cost, input: pred, label: temp_max}\n",
        ["x: {kind: numeric, columns: [temp_min, humidty]}", "temp_max: {kind: numeric}"],
    )
    assert err.startswith(
        "c.yaml:8:44: data.preprocessing.x.columns[1]: t.csv has no column 'humidty' for feed 'x'; "
        "did you mean 'humidity'?"
    ), err


def test_cross_entropy_over_logits_points_at_the_missing_softmax(tmp_path):
    err = _run(
        tmp_path,
        "layers:\n  - out: {type: fc, input: x, size: auto}\n"
        "  - xent: {type: cross_entropy, input: out, label: kind}\n  - loss: {type: mean, x: xent}\nloss: loss\n",
        ["x: {kind: numeric, columns: [temp_min, humidity]}", "kind: {kind: label}"],
    )
    assert err == (
        "m.yaml:3:11: layers[1].xent: cross_entropy takes probabilities, but 'out' is an fc's raw scores "
        "(logits: no softmax); use {type: softmax_with_cross_entropy, logits: out, label: kind}, or give "
        "'out' act: softmax"
    ), err
