"""Sizes from the data (issue 77): a model file writes `auto` where the fitted preprocessing decides
a size (an embedding's rows: the vocabulary of its category feed; the output layer's size: the
label's classes), pe fills it before the build in `pe train` and, from the run's
preprocessing.json, in `pe predict`, `export` and `summary`; a size written that disagrees with
the data is one config line at its file:line before anything trains; and the newcomer's penguins
classifier (configs/penguins.yaml + models/penguins.yaml: every column, island and sex one-hot,
held out by a stratified data.split of a file sorted by species) is at most 12 lines of YAML. Through real
`pe` processes on generated penguins-like CSVs (data/penguins/make_penguins.py)."""

import csv
import importlib.util
import json
import os

import pytest

from tests.cli.test_helpers import REPO, pe


def _penguins(path, rows, seed=3):
    spec = importlib.util.spec_from_file_location(
        "make_penguins", os.path.join(REPO, "data", "penguins", "make_penguins.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write(str(path), rows, seed)


MODEL = """\
feeds:
  measures: {{shape: [4]}}
  island: {{shape: [1], dtype: int64}}
  species: {{shape: [1], dtype: int64}}
layers:
  - isl: {{type: embedding, input: island, size: [{rows}, 3]}}
  - joined: {{type: concat, input: [measures, isl], axis: 1}}
  - hidden: {{type: fc, input: joined, size: {hidden}, act: relu}}
  - out: {{type: fc, input: hidden{classes}}}
  - xent: {{type: softmax_with_cross_entropy, logits: out, label: species}}
  - loss: {{type: mean, x: xent}}
loss: loss
"""

CONFIG = """\
model: model.yaml
epochs: 2
optimizer: {type: Adam, learning_rate: 0.05}
data:
  train: {format: csv, path: penguins.csv, columns: {measures: [bill_length_mm, bill_depth_mm,
          flipper_length_mm, body_mass_g]}}
  split: {eval: 0.33, stratify: species}
  batch_size: 40
  preprocessing:
    measures: {kind: numeric}
    island: {kind: category}
    species: {kind: label}
output: {curves: false}
"""


def _setup(root, rows="auto", hidden=8, classes=""):
    """The model, its config and 120 penguins in ``root``; ``classes``: the output layer's size
    argument (left out by default: the data decides it as it does for auto)."""
    _penguins(root / "penguins.csv", 120)
    (root / "model.yaml").write_text(MODEL.format(rows=rows, hidden=hidden, classes=classes))
    (root / "run.yaml").write_text(CONFIG)


def test_auto_and_left_out_sizes_train_and_the_run_predicts_exports_and_summarises(tmp_path):
    _setup(tmp_path)
    proc = pe("train", "run.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "size: [auto, 3]" in (tmp_path / "run" / "model.yaml").read_text()  # the run keeps what was written
    table = pe("summary", "run", cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    rows = {line.split()[0]: line for line in table.stdout.splitlines() if "(" in line}
    assert "[-1, 3]" in rows["isl"] and " 12 " in rows["isl"]  # 4 ids (3 islands and <unknown>) x 3
    assert "[-1, 3]" in rows["out"] and " 27 " in rows["out"]  # 3 species: 8 x 3 + 3
    with open(tmp_path / "penguins.csv", newline="") as f:
        raw = list(csv.DictReader(f))[100:105]
    with open(tmp_path / "new.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, [k for k in raw[0] if k != "species"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(raw)
    proc = pe("predict", "run.yaml", "--checkpoint", "run", "--data", "new.csv", "-o", "pred.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "pred.csv", newline="") as f:
        predicted = list(csv.DictReader(f))
    assert len(predicted) == 5 and {p["species"] for p in predicted} <= {"Adelie", "Chinstrap", "Gentoo"}
    proc = pe("export", "run/config.yaml", "-c", "run", "--inference-dir", "exported", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert os.path.isfile(tmp_path / "exported" / "__model__")


@pytest.mark.parametrize(
    "sizes, where, says",
    [
        (
            {"rows": 3, "classes": ", size: 3"},
            "6:50: layers[0].isl.size[0]",
            "3 rows, fewer than the data's 4: the category feed 'island' has 4 ids",
        ),
        (
            {"rows": 4, "classes": ", size: 2"},
            "9:42: layers[3].out.size",
            "2 outputs, but the data's 3: the label feed 'species' has 3 classes",
        ),
        (
            {"rows": 4, "hidden": "auto", "classes": ", size: 3"},
            "8:45: layers[2].hidden.size",
            "an auto output size needs this layer to give the logits of",
        ),
    ],
    ids=["embedding-rows", "output-size", "auto-without-a-rule"],
)
def test_a_size_the_data_contradicts_is_one_config_line_before_training(tmp_path, sizes, where, says):
    """The other sizes written right: on its own, each mistake used to fail at step 1 (Ids hold 3,
    outside the table of 3 rows) or train a wrong model."""
    _setup(tmp_path, **sizes)
    proc = pe("train", "run.yaml", "--out", "run", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"model.yaml:{where}: ") and says in err, err
    assert ("write auto (or " in err) != ("hidden" in sizes), err
    assert not (tmp_path / "run").exists() and "step" not in proc.stdout


def test_a_model_whose_feeds_the_preprocessing_implies_given_alone_points_at_the_run_config(tmp_path):
    """pe summary of a model file without feeds (a run config's data.preprocessing declares them):
    the error used to say only 'declare its inputs under feeds:'."""
    (tmp_path / "model.yaml").write_text(
        "layers:\n  - out: {type: fc, input: measures, size: auto}\n"
        "loss: {type: softmax_with_cross_entropy, logits: out, label: species}\n"
    )
    proc = pe("summary", "model.yaml", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == (
        "model.yaml:1:1: the model has no feeds; declare its inputs under 'feeds:', or give the command the run "
        "config whose data.preprocessing declares them, not the model file"
    ), proc.stderr


def test_a_feed_and_a_layer_given_whole_on_the_command_line_build(tmp_path):
    """data.preprocessing.x={kind: numeric} as an override declares the feed x at the command line,
    and model.layers.out={...} gives a layer whole there (their ops remember that place): each
    stopped with 'internal error: AttributeError: 'ArgMark' object has no attribute 'file''."""
    (tmp_path / "m.yaml").write_text(
        "layers:\n  - out: {type: fc, input: x, size: auto}\n"
        "loss: {type: softmax_with_cross_entropy, logits: out, label: y}\n"
    )
    (tmp_path / "run.yaml").write_text(
        "model: m.yaml\ndata:\n  train: {format: csv, path: t.csv}\n  preprocessing:\n    y: {kind: label}\n"
    )
    (tmp_path / "t.csv").write_text("x,y\n" + "".join(f"{i},{'ab'[i % 2]}\n" for i in range(6)))
    proc = pe(
        "summary",
        "run.yaml",
        "data.preprocessing.x={kind: numeric}",
        "model.layers.out={type: fc, input: x, size: auto, act: tanh}",
        cwd=tmp_path,
    )
    assert proc.returncode == 0 and "x (feed)" in proc.stdout, proc.stderr
    assert "[-1, 2]" in next(line for line in proc.stdout.splitlines() if line.startswith("out "))


def _yaml_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line for line in f if line.strip() and not line.lstrip().startswith("#")]


def test_the_penguins_classifier_is_twelve_lines_of_yaml_and_learns(tmp_path):
    """Every column of the table but the year (island and sex one-hot), from a file sorted by species
    as the real one is, held out by data.split stratified by species: no outside preprocessing."""
    config = os.path.join(REPO, "configs", "penguins.yaml")
    model = os.path.join(REPO, "models", "penguins.yaml")
    assert len(_yaml_lines(config)) + len(_yaml_lines(model)) <= 12
    assert "feeds" not in open(model).read()  # from data.preprocessing
    text = "".join(_yaml_lines(config))
    assert "start:" not in text and "stop:" not in text and "eval:" in text  # held out by data.split
    with open(os.path.join(REPO, "data", "penguins", "penguins.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    species = [r["species"] for r in rows]
    assert species == sorted(species, key=["Adelie", "Gentoo", "Chinstrap"].index)  # sorted, as the real file
    assert sum(r["sex"] == "NA" for r in rows) >= 3 and sum(r["body_mass_g"] == "NA" for r in rows) >= 2
    proc = pe("train", config, "--out", tmp_path / "run", "eval.every_epochs=0", cwd=tmp_path)  # one evaluation
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "run" / "preprocessing.json") as f:
        columns = [state["column"] for state in json.load(f)["feeds"].values()]
    assert ["island", "sex"] in columns and "data.split's eval part" in proc.stdout
    with open(tmp_path / "run" / "eval.json") as f:
        accuracy = json.load(f)["prediction"]["top1_accuracy"]
    assert accuracy >= 0.9
    assert f"held-out accuracy: {100 * accuracy:.2f}%" in proc.stdout
