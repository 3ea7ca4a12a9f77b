"""Missing values in tables (issue 77): declared markers in every column kind, rows without a label
dropped with a count (or refused), a training column missing in every row refused, a constant one
warned of, a number beyond float32 refused in a feed without preprocessing, and a regression's row
without its target dropped; through real `pe` processes on generated CSVs of a few rows."""

import csv
import json

import pytest

from tests.cli.test_helpers import line_model, pe

MODEL = """\
name: cls
feeds:
  x: {shape: [2]}
  c: {shape: [1], dtype: int64}
  y: {shape: [1], dtype: int64}
layers:
  - emb: {type: embedding, input: c, size: [8, 2]}
  - flat: {type: reshape, x: emb, shape: [-1, 2]}
  - both: {type: concat, input: [x, flat], axis: 1}
  - logits: {type: fc, input: both, size: 3}
  - xent: {type: softmax_with_cross_entropy, logits: logits, label: y}
  - loss: {type: mean, x: xent}
loss: loss
fetches: [loss]
"""

CONFIG = """\
model: m.yaml
epochs: 1
data:
  train: {format: csv, path: t.csv, columns: {x: [a, b], c: colour, y: species}}
  batch_size: 4
  preprocessing:
    x: {kind: numeric}
    c: {kind: category, missing: ['', unknown]}
    y: {kind: label}
optimizer: {type: SGD, learning_rate: 0.01}
output: {curves: false}
"""

ROWS = [
    ["1", "2", "red", "A"],
    ["?", "3", "unknown", "B"],
    ["2", "?", "blue", ""],
    ["3", "4", "red", "C"],
    ["4", "5", "", "A"],
    ["5", "6", "blue", "NA"],
    ["6", "7", "red", "B"],
    ["7", "8", "blue", "C"],
]


def _train(root, rows=ROWS, config=CONFIG, model=MODEL, *args):
    (root / "m.yaml").write_text(model)
    (root / "run.yaml").write_text(config)
    with open(root / "t.csv", "w", newline="") as f:
        csv.writer(f).writerows([["a", "b", "colour", "species"]] + rows)
    return pe("train", root / "run.yaml", "--out", root / "run", "-q", *args, cwd=root)


def test_declared_markers_are_missing_in_every_kind_and_unlabelled_rows_are_dropped(tmp_path):
    proc = _train(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "dropped 2 of 8 rows of t.csv: no 'species'" in proc.stderr
    feeds = json.loads((tmp_path / "run" / "preprocessing.json").read_text())["feeds"]
    assert feeds["y"]["classes"] == ["A", "B", "C"]  # no '' or NA class
    assert feeds["c"]["vocabulary"] == ["<unknown>", "red", "blue"]  # '' and the feed's own 'unknown'
    assert feeds["x"]["fill_value"] == pytest.approx([21 / 5, 29 / 6])  # '?' missing: the mean of the labelled rest


def test_a_missing_label_is_refused_when_the_config_says_so(tmp_path):
    proc = _train(tmp_path, ROWS, CONFIG.replace("  batch_size: 4", "  batch_size: 4\n  on_missing_label: error"))
    assert proc.returncode == 2 and "t.csv:4: the label 'species' is missing (2 of 8 rows)" in proc.stderr
    assert proc.stderr.strip().count("\n") == 0


def test_a_training_column_missing_in_every_row_is_one_line_naming_it(tmp_path):
    proc = _train(tmp_path, [[a, "NA", c, s] for a, _, c, s in ROWS])
    assert proc.returncode == 2 and "column 'b' of t.csv is missing in every row" in proc.stderr
    assert proc.stderr.strip().count("\n") == 1 and "Traceback" not in proc.stderr  # the drop note, the error


def test_a_constant_training_column_is_warned_of(tmp_path):
    proc = _train(tmp_path, [[a, "5", c, s] for a, _, c, s in ROWS])
    assert proc.returncode == 0, proc.stderr
    assert (
        "warning: column 'b' of t.csv has the one value 5 in every training row (its std is 0: pe divides "
        "by 1" in proc.stderr
    )


def test_a_number_beyond_float32_in_a_raw_feed_is_refused_by_predict(tmp_path):
    (tmp_path / "line.yaml").write_text(line_model(2))
    (tmp_path / "run.yaml").write_text(
        "model: line.yaml\ndata:\n  train: {format: csv, path: t.csv, columns: "
        "{x: [a, b], y: c}}\n  batch_size: 4\noutput: {curves: false}\n"
    )
    (tmp_path / "t.csv").write_text("a,b,c\n" + "".join(f"{i},{i + 1},{i + 2}\n" for i in range(8)))
    proc = pe("train", "run.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "new.csv").write_text("a,b\n1,2\n3,1e39\n")
    proc = pe("predict", "run.yaml", "--checkpoint", "run", "--data", "new.csv", "-o", "p.csv", cwd=tmp_path)
    assert proc.returncode != 0 and "feed 'x': sample 1 holds 1e+39, which is not a finite float32" in proc.stderr


def test_a_regression_row_without_its_target_is_dropped_not_filled(tmp_path):
    (tmp_path / "line.yaml").write_text(line_model(1))
    (tmp_path / "run.yaml").write_text(
        "model: line.yaml\ndata:\n  train: {format: csv, path: t.csv, columns: "
        "{x: a, y: c}}\n  batch_size: 4\noutput: {curves: false}\n"
    )
    (tmp_path / "t.csv").write_text("a,c\n" + "".join(f"{i},{'NA' if i in (2, 5) else i + 2}\n" for i in range(8)))
    proc = pe("train", "run.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0 and "dropped 2 of 8 rows of t.csv: no 'c'" in proc.stderr, proc.stderr
