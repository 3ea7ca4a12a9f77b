"""Features in, a model out (issue 87): a model file's ``input_features`` / ``output_features``
expand into the layers a user would write and their data.preprocessing entries; ``pe summary``, the
run's model.yaml and a second run from that record show and use those layers; each kind's encoder
builds and trains; mistakes are one line at their key; the bundled feature configs are at most 8
lines of YAML each. Real ``pe`` processes on generated tables (data/penguins/make_penguins.py)."""

import csv
import json
import os
import random

import pytest

from tests.cli.test_helpers import REPO, data_maker, pe

PENGUINS = """\
input_features:
  - {name: measures, column: [bill_length_mm, bill_depth_mm, flipper_length_mm, body_mass_g], kind: numeric}
  - {column: island, kind: category, encoder: {type: one_hot}}
  - {column: sex, kind: binary}
output_features: [{column: species, kind: category}]
combiner: {size: 16}
"""
CONFIG = """\
model: m.yaml
epochs: 20
optimizer: {type: Adam, learning_rate: 0.05}
data:
  train: {format: csv, path: p.csv}
  split: {eval: 0.25, stratify: species}
"""


def _penguins(path, rows):
    data_maker("penguins").write(str(path), rows, 6)


def test_features_expand_into_layers_that_train_and_the_record_is_a_model_file(tmp_path):
    _penguins(tmp_path / "p.csv", 160)
    (tmp_path / "m.yaml").write_text(PENGUINS)
    (tmp_path / "c.yaml").write_text(CONFIG)
    table = pe("summary", "c.yaml", cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    rows = {line.split()[0]: line for line in table.stdout.splitlines() if "(" in line}
    assert "[-1, 4]" in rows["island"] and "[-1, 3]" in rows["sex"]  # one-hot: 3 islands, 2 sexes, <unknown>
    assert "m.yaml:6 layers[0] combined" in rows["combined"] and "[-1, 11]" in rows["combined"]
    assert " 192 " in rows["hidden1"] and "m.yaml:6 layers[1] hidden1" in rows["hidden1"]  # (11 + 1) x 16
    assert "[-1, 3]" in rows["species_logits"] and "m.yaml:5" in rows["species_logits"]
    proc = pe("train", "c.yaml", "--out", "run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    accuracy = json.loads((tmp_path / "run" / "eval.json").read_text())["prediction"]["top1_accuracy"]
    assert accuracy >= 0.9 and f"held-out accuracy: {100 * accuracy:.2f}%" in proc.stdout
    record = (tmp_path / "run" / "model.yaml").read_text()
    assert "input_features" not in record and "- species_logits:" in record and "size: auto" in record
    saved = json.loads((tmp_path / "run" / "preprocessing.json").read_text())["feeds"]
    assert saved["island"]["encoding"] == "one_hot" and saved["species"]["kind"] == "label"
    again = pe(
        "train", "run/config.yaml", "--out", "run2", "--max-steps", "3", "-q", cwd=tmp_path
    )  # the layers, as written
    assert again.returncode == 0, again.stderr
    (tmp_path / "new.csv").write_text(
        "bill_length_mm,bill_depth_mm,flipper_length_mm,body_mass_g,island,sex\n47.5,15.0,217,5076,Biscoe,female\n"
    )
    proc = pe("predict", "c.yaml", "-c", "run", "--data", "new.csv", "-o", "pred.csv", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "pred.csv", newline="") as f:
        assert [r["species"] for r in csv.DictReader(f)] == ["Gentoo"]


def test_every_input_kind_builds_and_trains(tmp_path):
    rng = random.Random(3)
    words = ["good", "fine", "bad", "late", "broken", "great"]
    with open(tmp_path / "t.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["note", "tags", "codes", "price", "ok", "cost"])
        for i in range(96):
            good = i % 2
            note = " ".join(rng.choice(words[:2] if good else words[2:5]) for _ in range(1 + i % 4))
            writer.writerow(
                [
                    note,
                    " ".join(rng.sample(["a", "b", "c", "d"], 2)),
                    "X Y Z"[: 1 + 2 * (i % 3)],
                    f"{rng.uniform(1, 9):.2f}",
                    "yes" if good else "no",
                    f"{rng.uniform(10, 20):.2f}",
                ]
            )
    (tmp_path / "m.yaml").write_text("""\
input_features:
  - {column: note, kind: text, encoder: {type: rnn, size: 4}}
  - {column: tags, kind: set}
  - {column: codes, kind: sequence, encoder: {pool: max, size: 3}}
  - {column: price, kind: numeric}
output_features: [{column: ok, kind: binary}, {column: cost, name: cost_out, kind: numeric}]
combiner: {layers: 2, size: 8}
""")
    (tmp_path / "c.yaml").write_text(
        "model: m.yaml\nepochs: 3\noptimizer: {type: Adam, learning_rate: 0.02}\n"
        "data:\n  train: {format: csv, path: t.csv}\n  split: {eval: 0.25}\n"
    )
    table = pe("summary", "c.yaml", cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    names = [line.split()[0] for line in table.stdout.splitlines() if "(" in line]
    for layer in (
        "note_embed",
        "note_gates",
        "note_lstm",
        "note_pool",
        "tags_pool",
        "codes_pool",
        "hidden2",
        "ok_logits",
        "ok_acc",
        "cost_out_pred",
        "cost_out_loss",
        "loss",
    ):
        assert layer in names, table.stdout
    proc = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    saved = json.loads((tmp_path / "run" / "preprocessing.json").read_text())["feeds"]
    assert saved["tags"]["tokenizer"] == "whitespace" and saved["cost_out"]["column"] == "cost"


@pytest.mark.parametrize(
    "model, says",
    [
        (
            "layers: [out: {type: fc, input: x, size: 1}]\n" + PENGUINS,
            "m.yaml:1:1: layers: a model file gives its layers or its input_features and output_features, not both",
        ),
        (
            PENGUINS.replace("kind: binary", "knd: binary"),
            "m.yaml:4:19: input_features[2].knd: unknown key 'knd' of a feature; did you mean 'kind'?",
        ),
        (
            PENGUINS.replace("kind: binary", "kind: boolean"),
            "m.yaml:4:25: input_features[2].kind: a feature's kind is one "
            "of numeric, category, binary, text, sequence, set, image, date, not "
            "'boolean'",
        ),
        (
            PENGUINS.replace("{type: one_hot}", "{type: onehot}"),
            "input_features[1].encoder.type: encoder.type is embed or one_hot, not 'onehot'",
        ),
    ],
    ids=["both", "misspelt-key", "unknown-kind", "bad-encoder"],
)
def test_a_mistake_in_the_features_is_one_line_at_its_key(tmp_path, model, says):
    _penguins(tmp_path / "p.csv", 30)
    (tmp_path / "m.yaml").write_text(model)
    (tmp_path / "c.yaml").write_text(CONFIG)
    proc = pe("train", "c.yaml", "--out", "run", cwd=tmp_path)
    err = proc.stderr.strip()
    assert proc.returncode == 2 and len(err.splitlines()) == 1 and says in err, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "config", ["penguins_features", "reviews_features", "shipping_features", "mnist_png_features", "weather_features"]
)
def test_the_bundled_feature_configs_are_at_most_eight_lines(config):
    lines = 0
    path = os.path.join(REPO, "configs", config + ".yaml")
    with open(path) as f:
        text = f.read()
    model = os.path.normpath(os.path.join(os.path.dirname(path), text.split("model: ", 1)[1].split()[0]))
    for name in (path, model):
        with open(name) as f:
            lines += sum(1 for line in f if line.strip() and not line.lstrip().startswith("#"))
    assert lines <= 8 and "input_features" in open(model).read()


def _weather(path, days):
    data_maker("weather").write(str(path), days, 3)


def test_a_date_column_is_split_into_parts_that_carry_the_season(tmp_path):
    """kind: date (data.preprocessing and features): ISO dates into 13 parts; the season the date
    gives is most of the day's temperature (10 degrees either way), which the regression learns."""
    _weather(tmp_path / "w.csv", 240)
    (tmp_path / "m.yaml").write_text(
        "input_features: [{column: date, kind: date}, {column: station, kind: category}]\n"
        "output_features: [{column: temp_max, kind: numeric}]\n"
    )
    (tmp_path / "c.yaml").write_text(
        "model: m.yaml\nepochs: 20\noptimizer: {type: Adam, learning_rate: 0.01}\n"
        "data:\n  train: {format: csv, path: w.csv}\n  split: {eval: 0.2}\n"
    )
    table = pe("summary", "c.yaml", cwd=tmp_path)
    assert table.returncode == 0 and "date (feed)" in table.stdout and "[-1, 13]" in table.stdout, table.stderr
    proc = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "run" / "eval.json").read_text())["prediction"]
    assert report["rmse"] < 2.5 and report["r2"] > 0.8, report  # noise: 1.5 degrees
    saved = json.loads((tmp_path / "run" / "preprocessing.json").read_text())["feeds"]["date"]
    assert saved["kind"] == "date" and saved["fill"].startswith("2023-") and 2023 < saved["year_mean"] < 2024
    (tmp_path / "new.csv").write_text("date,station\n2023-07-20T15:00,valley\n2023-01-20,valley\n")
    proc = pe("predict", "c.yaml", "-c", "run", "--data", "new.csv", "-o", "pred.csv", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "pred.csv", newline="") as f:
        summer, winter = (float(r["temp_max"]) for r in csv.DictReader(f))
    assert summer - winter > 10
    (tmp_path / "bad.csv").write_text("date,station\n20/07/2023,valley\n")
    bad = pe("predict", "c.yaml", "-c", "run", "--data", "bad.csv", "-o", "pred2.csv", "-q", cwd=tmp_path)
    assert bad.returncode == 1 and "sample 0 holds '20/07/2023', not an ISO date" in bad.stderr, bad.stderr
