"""Every override of a model file's features applies or is refused (issue 97 items 2, 3 and 6):
``model.combiner.size=64``, ``model.combiner.layers=2`` and an input feature's encoder, by its index
(``model.input_features[1]``) or by its feed's name (``model.input_features.island``), change the
model ``pe summary`` builds and the run trains; an override (or a key of the file) that would change
nothing is refused in one line naming it; a target among the inputs and two features of one feed
are refused at the feature's line; ``pe graph`` takes a run directory; prediction CSVs hold each
number's float64 exactly. Real ``pe`` processes on generated penguins tables."""

import csv
import json

import numpy as np
import pytest

from tests.cli.test_features import _penguins
from tests.cli.test_helpers import pe

MODEL = """\
input_features:
  - {name: measures, column: [bill_length_mm, bill_depth_mm, flipper_length_mm], kind: numeric}
  - {column: island, kind: category}
  - {column: sex, kind: binary}
output_features: [{column: species, kind: category}]
combiner: {size: 16}
"""
CONFIG = """\
model: m.yaml
epochs: 2
optimizer: {type: Adam, learning_rate: 0.05}
data:
  train: {format: csv, path: p.csv}
  split: {eval: 0.25, stratify: species}
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("features")
    _penguins(tmp / "p.csv", 40)
    (tmp / "c.yaml").write_text(CONFIG)
    return tmp


def _summary(tmp, model, *overrides):
    (tmp / "m.yaml").write_text(model)
    proc = pe("summary", "c.yaml", *overrides, cwd=tmp, timeout=120)
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines() if " (" in line}
    return proc, rows


def test_overrides_of_the_combiner_and_an_encoder_by_index_change_the_built_model(table):
    overrides = ("model.combiner.size=64", "model.combiner.layers=2", "model.input_features[1].encoder.size=4")
    proc, rows = _summary(table, MODEL, *overrides)
    assert proc.returncode == 0, proc.stderr
    shapes = {name: " ".join(row[2:4]) for name, row in rows.items()}
    assert shapes["hidden1"] == shapes["hidden2"] == "[-1, 64]" and "hidden3" not in shapes, proc.stdout
    assert shapes["island_embed"] == "[-1, 4]" and shapes["combined"] == "[-1, 10]"  # 3 + 4 + 3 (sex one-hot)


def test_an_input_feature_addressed_by_name_made_one_hot_is_one_hot_in_the_feeds(table):
    proc, rows = _summary(table, MODEL, "model.input_features.island.encoder={type: one_hot}")
    assert proc.returncode == 0, proc.stderr
    assert "island_embed" not in rows and " ".join(rows["island"][2:4]) == "[-1, 4]"  # 3 islands + <unknown>


@pytest.mark.parametrize(
    "model, override, says",
    [
        (
            MODEL,
            "model.input_features.islnd.encoder.size=4",
            "command line 'model.input_features.islnd.encoder.size=4': the model file m.yaml has no input "
            "feature 'islnd'; did you mean 'island'?",
        ),
        (
            MODEL,
            "model.input_features[1].encoder={type: one_hot, size: 4}",
            "input_features[1].encoder.size: encoder.size would change nothing with type: one_hot",
        ),
        (
            MODEL,
            "model.output_features[0].encoder.size=3",
            "output_features[0].encoder: unknown key 'encoder' of a feature; valid: column, kind, loss, name, "
            "preprocessing",
        ),
        (
            MODEL,
            "model.combiner={layers: 0, size: 8}",
            "combiner.size: combiner.size would change nothing with layers: 0",
        ),
        (
            "feeds: {x: {shape: [3]}, species: {shape: [1], dtype: int64}}\n"
            "layers: [{out: {type: fc, input: x, size: 3}}]\n",
            "model.combiner.size=64",
            "command line 'model.combiner.size=64': the model file m.yaml has no input_features: "
            "'combiner.size' would change nothing",
        ),
        (
            "feeds: {x: {shape: [3]}}\ncombiner: {size: 8}\nlayers: [{out: {type: fc, input: x, size: 3}}]\n",
            None,
            "m.yaml:2:1: combiner: combiner goes with input_features: in a model file of layers it would "
            "change nothing",
        ),
        (
            MODEL,
            "model.output_features.species.kind=binary",
            "output_features[0]: binary feature 'species' holds 3 distinct values",
        ),
    ],
    ids=[
        "unknown-name",
        "one-hot-size",
        "output-encoder",
        "combiner-size-no-layers",
        "layers-file",
        "combiner-in-layers-file",
        "binary-three-values",
    ],
)
def test_what_would_change_nothing_is_one_line_naming_the_key(table, model, override, says):
    proc, _ = _summary(table, model, *([override] if override else []))
    err = proc.stderr.strip()
    assert proc.returncode != 0 and len(err.splitlines()) == 1 and says in err, err


@pytest.mark.parametrize(
    "extra, says",
    [
        (
            "{column: species, kind: category}",
            "m.yaml:5:5: input_features[3]: the input feed 'species' is also the feed of output_features[0], "
            "the target",
        ),
        (
            "{column: year, kind: numeric, name: species}",
            "m.yaml:5:5: input_features[3]: the input feed 'species' is also the feed of output_features[0]",
        ),
        (
            "{column: species, kind: category, name: kind_of_penguin}",
            "m.yaml:5:5: input_features[3]: the input 'kind_of_penguin' reads column 'species', the target of "
            "output_features[0]: the model would be given the answer it is to predict; drop that column",
        ),
        (
            "{column: [year, species], kind: numeric, name: when_and_what}",
            "m.yaml:5:5: input_features[3]: the input 'when_and_what' reads column 'species', the target of",
        ),
    ],
    ids=["target-as-input", "same-feed-name", "target-under-another-name", "target-among-columns"],
)
def test_a_target_among_the_inputs_is_refused_at_the_input(table, extra, says):
    model = MODEL.replace("kind: binary}\n", "kind: binary}\n  - " + extra + "\n")
    proc, _ = _summary(table, model)
    err = proc.stderr.strip()
    assert proc.returncode == 2 and len(err.splitlines()) == 1 and says in err, err


REGRESSION = MODEL.replace("{column: species, kind: category}", "{column: body_mass_g, kind: numeric}")


@pytest.fixture(scope="module")
def trained(table):
    (table / "rm.yaml").write_text(REGRESSION)
    (table / "r.yaml").write_text(CONFIG.replace("m.yaml", "rm.yaml").replace(", stratify: species", ""))
    proc = pe("train", "r.yaml", "--out", "run", "--max-steps", "2", "-q", "model.combiner.size=24", cwd=table)
    assert proc.returncode == 0, proc.stderr
    return table


def test_a_run_trains_the_overridden_model_and_a_resume_from_its_record_keeps_it(trained):
    assert "- hidden1: {type: fc, input: combined, size: 24, act: relu}" in (trained / "run" / "model.yaml").read_text()
    proc = pe("train", "run/config.yaml", "--resume", "run", "--max-steps", "3", "-q", cwd=trained)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((trained / "run" / "overrides.json").read_text())[0] == "model.combiner.size=24"


def test_pe_graph_takes_a_run_directory(trained):
    proc = pe("graph", "run", "--text", cwd=trained)
    assert proc.returncode == 0, proc.stderr
    assert "hidden1" in proc.stdout and "[-1, 24]" in proc.stdout.replace("float32", "")


def test_prediction_csvs_hold_each_float64_exactly(trained):
    for out in ("pred.csv", "pred.npz"):
        proc = pe("predict", "run/config.yaml", "-c", "run", "--data", "p.csv", "-o", out, "-q", cwd=trained)
        assert proc.returncode == 0, proc.stderr
    with open(trained / "pred.csv", newline="") as f:
        written = np.array([float(r["body_mass_g"]) for r in csv.DictReader(f)])
    exact = np.load(trained / "pred.npz")["value"].astype(np.float64).reshape(-1)
    assert written.tolist() == exact.tolist()  # 6 significant digits would round a mass in grams
    assert any(len(repr(v).replace(".", "").lstrip("0")) > 6 for v in written)
