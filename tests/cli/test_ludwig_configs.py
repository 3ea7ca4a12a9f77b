"""A model file written in Ludwig's own spellings trains unchanged where pe has the kinds (issue 97
item 4): the shapes of Ludwig's documented examples (a table as adult census and titanic, a text as AG
news, digits as MNIST, a regression with dates), written here over pe's bundled data, build the model
the pe-spelled file builds (``pe summary`` equal), resolve to the same run (``--print-config`` equal but
for the model file) and train to the same numbers; a Ludwig key pe cannot compute as Ludwig does is one
line at the file's line, exit 2, no traceback. Real ``pe`` processes."""

import json
import os
import statistics

import pytest

from tests.cli.test_helpers import REPO, pe

DATA = os.path.join(REPO, "data")


def _table(text):
    """The rows of ``pe summary``'s table without its 'Declared at' column (the files' lines differ)."""
    lines = text.splitlines()
    cut = next(line.index("Declared at") for line in lines if "Declared at" in line)
    return [line[:cut].rstrip() for line in lines if not line.startswith("Model:")]


def _config(text):
    return [line for line in text.splitlines() if not line.startswith(("model:", "# resolved"))]


def _same_as_pe(tmp_path, ludwig, ludwig_run, pe_model, pe_run, train=True):
    """Both spellings in their own directory: summary, resolved config and (train) the run's numbers equal."""
    out = {}
    for name, model, run in (("ludwig", ludwig, ludwig_run), ("pe", pe_model, pe_run)):
        d = tmp_path / name
        d.mkdir()
        (d / "m.yaml").write_text(model)
        (d / "c.yaml").write_text(run)
        summary = pe("summary", "c.yaml", cwd=d)
        config = pe("train", "c.yaml", "--print-config", cwd=d)
        assert summary.returncode == 0 and config.returncode == 0, summary.stderr + config.stderr
        out[name] = [_table(summary.stdout), _config(config.stdout)]
        if train:
            out[name].append(_results(pe("train", "c.yaml", "--out", "run", "-q", cwd=d, timeout=300)))
    assert out["ludwig"] == out["pe"]
    return out["ludwig"]


TABULAR = """\
# adult census income's shape: defaults per type, number and category features, concat with fc layers
defaults:
  number:
    preprocessing: {normalization: zscore, missing_value_strategy: fill_with_mean}
input_features:
  - name: bill_length_mm
    type: number
  - {column: flipper_length_mm, kind: numeric}  # pe's spelling beside Ludwig's: the defaults apply too
  - name: body_mass_g
    type: numerical
    preprocessing: {missing_value_strategy: fill_with_const, fill_value: 4000, normalization: minmax}
  - name: island
    type: category
    encoder: sparse
  - name: sex
    type: binary
combiner:
  type: concat
  num_fc_layers: 2
  output_size: 16
  dropout: 0.2
  activation: relu
output_features:
  - name: species
    type: category
    loss: {type: softmax_cross_entropy}
    decoder: {type: classifier, num_fc_layers: 0}
random_seed: 7
trainer:
  epochs: 2
  batch_size: 32
  validation_field: combined
  learning_rate: 0.01
  optimizer: {type: adam, betas: [0.9, 0.99]}
preprocessing:
  split: {type: stratify, column: species, probabilities: [0.7, 0.2, 0.1]}
"""
TABULAR_PE = """\
input_features:
  - {column: bill_length_mm, kind: numeric, preprocessing: {scaling: zscore, fill: mean}}
  - {column: flipper_length_mm, kind: numeric, preprocessing: {scaling: zscore, fill: mean}}
  - {column: body_mass_g, kind: numeric, preprocessing: {scaling: minmax, fill: 4000.0}}
  - {column: island, kind: category, encoder: {type: one_hot}}
  - {column: sex, kind: binary}
combiner: {size: 16, layers: 2, dropout: 0.2}
output_features: [{column: species, kind: category}]
"""
PENGUINS_RUN = f"model: m.yaml\ndata:\n  train: {{format: csv, path: {DATA}/penguins/penguins.csv}}\n"
TABULAR_PE_RUN = PENGUINS_RUN + (
    "  batch_size: 32\n  split: {eval: 0.2, test: 0.1, stratify: species}\nepochs: 2\n"
    "optimizer: {type: Adam, learning_rate: 0.01, beta1: 0.9, beta2: 0.99}\nseed: 7\n"
)


def _results(proc):
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if not line.startswith(("run dir", "check"))]


def test_a_tabular_ludwig_config_trains_as_its_pe_spelling(tmp_path):
    table, config, result = _same_as_pe(tmp_path, TABULAR, PENGUINS_RUN, TABULAR_PE, TABULAR_PE_RUN)
    # as `ludwig train --config m.yaml --dataset penguins.csv`: the file is its own run config
    alone = pe(
        "train", "m.yaml", "--dataset", f"{DATA}/penguins/penguins.csv", "--out", "alone", "-q", cwd=tmp_path / "ludwig"
    )
    assert _results(alone) == result
    assert any(row.startswith("hidden2 (fc)") and row.split()[-1] == "272" for row in table), table  # 16x16+16
    assert any(row.startswith("hidden2_drop (dropout)") for row in table), table
    assert "  split: {eval: 0.2, test: 0.1, seed: 7, stratify: species}" in config
    assert any(line.startswith("held-out accuracy:") for line in result), result


TEXT = """\
# AG news' shape (Ludwig before 0.5: training, force_split, split_probabilities, type-global preprocessing)
input_features:
  - name: review
    type: text
    preprocessing: {tokenizer: space, lowercase: true}
output_features:
  - name: sentiment
    type: category
training:
  epochs: 1
preprocessing:
  force_split: true
  split_probabilities: [0.7, 0.1, 0.2]
  text: {max_sequence_length: 12}
"""
TEXT_PE = """\
input_features: [{column: review, kind: text, preprocessing: {tokenizer: whitespace, max_length: 12, lowercase: true}}]
output_features: [{column: sentiment, kind: category}]
"""
REVIEWS_RUN = f"model: m.yaml\ndata:\n  train: {{format: csv, path: {DATA}/reviews/reviews.csv, stop: 400}}\n"


def test_a_text_ludwig_config_in_its_older_spelling_trains_as_its_pe_spelling(tmp_path):
    run_pe = REVIEWS_RUN + "  split: {eval: 0.1, test: 0.2}\nepochs: 1\n"
    _same_as_pe(tmp_path, TEXT, REVIEWS_RUN, TEXT_PE, run_pe)


IMAGE = """\
# MNIST's shape: an image feature, its height, width and channels
input_features:
  - name: image
    type: image
    preprocessing: {height: 28, width: 28, num_channels: 1}
output_features:
  - name: label
    type: category
trainer: {epochs: 1, batch_size: 16}
"""
IMAGE_PE = """\
input_features: [{column: image, kind: image, preprocessing: {mode: L, size: [28, 28]}}]
output_features: [{column: label, kind: category}]
"""
IMAGE_RUN = f"model: m.yaml\ndata:\n  train: {{format: folders, path: {DATA}/mnist_png/train, limit: 40}}\n"


def test_an_image_ludwig_config_trains_as_its_pe_spelling(tmp_path):
    _same_as_pe(tmp_path, IMAGE, IMAGE_RUN, IMAGE_PE, IMAGE_RUN + "  batch_size: 16\nepochs: 1\n")


DATES = """\
# weather's shape: a date in a stated format, a number output, early stopping and sgd with momentum
input_features:
  - {name: date, type: date, preprocessing: {datetime_format: "%Y-%m-%d"}}
  - {name: station, type: category}
  - {name: humidity, type: number}
output_features:
  - {name: temp_max, type: number, loss: {type: mean_squared_error}}
combiner: {type: concat, num_fc_layers: 1, output_size: 8}
trainer:
  epochs: 1
  early_stop: 2
  learning_rate: 0.05
  optimizer: {type: sgd, momentum: 0.9}
preprocessing: {split: {type: random, probabilities: [0.8, 0.2, 0.0]}}
"""
DATES_PE = """\
input_features:
  - {column: date, kind: date, preprocessing: {format: "%Y-%m-%d"}}
  - {column: station, kind: category}
  - {column: humidity, kind: numeric}
output_features: [{column: temp_max, kind: numeric}]
combiner: {size: 8, layers: 1}
"""
WEATHER_RUN = f"model: m.yaml\ndata:\n  train: {{format: csv, path: {DATA}/weather/weather.csv, stop: 600}}\n"


def test_a_regression_with_dates_early_stop_and_momentum_resolves_as_its_pe_spelling(tmp_path):
    run_pe = WEATHER_RUN + (
        "  split: {eval: 0.2}\nepochs: 1\noptimizer: {type: Momentum, learning_rate: 0.05, momentum: 0.9}\n"
        "early_stopping: {metric: temp_max_loss, mode: min, patience: 2}\n"
    )
    _same_as_pe(tmp_path, DATES, WEATHER_RUN, DATES_PE, run_pe, train=False)


def test_zscore_divides_by_the_sample_standard_deviation_as_ludwig_does(tmp_path):
    values = [3.0, 5.0, 6.0, 10.0, 11.0]
    rows = "\n".join(f"{v},{'ab'[i % 2]}" for i, v in enumerate(values))
    (tmp_path / "t.csv").write_text("x,y\n" + rows + "\n")
    (tmp_path / "m.yaml").write_text(
        "input_features: [{name: x, type: number, preprocessing: {normalization: zscore}}]\n"
        "output_features: [{name: y, type: category}]\n"
    )
    (tmp_path / "c.yaml").write_text("model: m.yaml\ndata: {train: {format: csv, path: t.csv}}\n")
    proc = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    state = json.loads((tmp_path / "run" / "preprocessing.json").read_text())["feeds"]["x"]
    assert state["scaling"] == "zscore"
    assert state["shift"] == pytest.approx([statistics.mean(values)], rel=1e-6)
    assert state["divide"] == pytest.approx([statistics.stdev(values)], rel=1e-6)  # n - 1, not pstdev


MINIMAL = "input_features: [{name: island, type: category}]\noutput_features: [{name: species, type: category}]\n"


@pytest.mark.parametrize(
    "model, says",
    [
        (
            MINIMAL.replace("type: category}]\nout", "type: category, kind: category}]\nout"),
            "m.yaml:1:33: input_features[0].type: a feature gives its kind (pe's spelling) or its type (Ludwig's)",
        ),
        (MINIMAL.replace("island, type: category", "island, type: audio"), "Ludwig's type 'audio' has no pe kind"),
        (
            MINIMAL + "combiner: {type: concat, num_fc_layers: 3, output_size: 128, activation: tanh}\n",
            "m.yaml:3:74: combiner.activation: combiner.activation: 'tanh' is not computed by pe's combiner",
        ),
        (MINIMAL + "combiner: {type: tabnet}\n", "combiner.type: combiner type 'tabnet': pe's combiner is"),
        (MINIMAL + "combiner: {type: concat, size: 8}\n", "combiner gives pe's size and Ludwig's type: concat"),
        (
            MINIMAL.replace("species, type: category}", "species, type: category, decoder: {num_fc_layers: 4}}"),
            "m.yaml:2:61: output_features[0].decoder.num_fc_layers: decoder.num_fc_layers: 4: pe's head has no fc layer",
        ),
        (
            MINIMAL.replace(
                "species, type: category}", "species, type: binary, preprocessing: {fallback_true_label: x}}"
            ),
            "Ludwig's preprocessing key 'fallback_true_label' of a binary feature has no pe equivalent",
        ),
        (
            MINIMAL.replace(
                "island, type: category", "bill_length_mm, type: number, preprocessing: {normalization: iq}"
            ),
            "input_features[0].preprocessing.normalization: Ludwig's preprocessing normalization: 'iq'",
        ),
        (
            MINIMAL.replace(
                "island, type: category", "sex, type: category, preprocessing: {missing_value_strategy: bfill}"
            ),
            "preprocessing.missing_value_strategy: Ludwig's preprocessing missing_value_strategy: 'bfill'",
        ),
        (
            MINIMAL + "preprocessing: {split: {type: fixed, column: split}}\n",
            "m.yaml:3:31: preprocessing.split.type: Ludwig's split type 'fixed': pe splits data.train at random",
        ),
        (
            MINIMAL + "preprocessing: {split_probabilities: [0.7, 0.1, 0.2]}\n",
            "preprocessing.split_probabilities: without force_split: true Ludwig splits by the table's split column",
        ),
        (
            MINIMAL + "training: {optimizer: {type: rmsprop}}\n",
            "m.yaml:3:30: training.optimizer.type: optimizer type 'rmsprop': pe runs Ludwig's adam and sgd",
        ),
        (
            MINIMAL + "trainer: {batch_size: auto}\n",
            "trainer.batch_size is a whole number of at least 1 in pe, not 'auto'",
        ),
        (
            MINIMAL + "trainer: {learning_rate_scheduler: {decay: exponential}}\n",
            "m.yaml:3:11: trainer.learning_rate_scheduler: Ludwig's trainer key 'learning_rate_scheduler' has no pe",
        ),
        (
            MINIMAL.replace("island, type: category", "image, type: image, preprocessing: {height: 28}"),
            "input_features[0].preprocessing.height: an image's height and width go together",
        ),
        (
            MINIMAL.replace("island, type: category", "island, type: category, encoder: sparse_typo"),
            "input_features[0].encoder.type: encoder.type is embed or one_hot, not 'sparse_typo'",
        ),
        (MINIMAL + "hyperopt: {goal: minimize}\n", "m.yaml:3:1: hyperopt: Ludwig's 'hyperopt' section has no pe"),
    ],
    ids=[
        "kind-and-type",
        "audio",
        "combiner-activation",
        "combiner-type",
        "combiner-mixed",
        "decoder",
        "fallback-true-label",
        "normalization-iq",
        "bfill",
        "split-fixed",
        "split-column",
        "rmsprop",
        "batch-size-auto",
        "lr-scheduler",
        "height-alone",
        "encoder-type",
        "hyperopt",
    ],
)
def test_a_ludwig_key_pe_cannot_compute_is_one_line_at_its_key(tmp_path, model, says):
    (tmp_path / "m.yaml").write_text(model)
    (tmp_path / "c.yaml").write_text(PENGUINS_RUN)
    proc = pe("train", "c.yaml", "--out", "run", cwd=tmp_path, timeout=120)
    err = proc.stderr.strip()
    assert proc.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert says in err, err
    assert not (tmp_path / "run").exists()


def test_a_ludwig_config_trained_without_its_table_says_how_pe_trains_it(tmp_path):
    (tmp_path / "m.yaml").write_text(MINIMAL + "trainer: {epochs: 1}\n")
    for args, says in (
        ((), "a Ludwig config is one), not a run config; give it its table, as Ludwig's --dataset: pe train m.yaml"),
        (("--dataset", "t.parquet"), "--dataset t.parquet: a .csv, .tsv or .jsonl table, or a folder"),
    ):
        proc = pe("train", "m.yaml", *args, cwd=tmp_path)
        err = proc.stderr.strip()
        assert proc.returncode == 2 and len(err.splitlines()) == 1 and says in err, err
        assert not (tmp_path / "runs").exists()
