"""data.split (issue 77): one CSV split into train / eval / test rows, stratified by a column, recorded
in the run so that --resume and pe eval see the same rows, and a data file changed under the run
refused; through real `pe` processes on a generated class-sorted CSV of 30 rows."""

import json
import re

from tests.cli.test_helpers import class_model, pe

MODEL = class_model(2)

CONFIG = """\
model: m.yaml
epochs: 2
data:
  train: {format: csv, path: t.csv, columns: {x: [a, b], y: species}}
  split: {eval: 0.2, test: 0.2, seed: 5, stratify: species}
  batch_size: 6
  preprocessing:
    x: {kind: numeric}
    y: {kind: label}
optimizer: {type: SGD, learning_rate: 0.1}
output: {curves: false}
"""

SPECIES = ["Adelie"] * 10 + ["Chinstrap"] * 10 + ["Gentoo"] * 10  # sorted by class, as files often are


def _setup(root, config=CONFIG):
    (root / "m.yaml").write_text(MODEL)
    (root / "run.yaml").write_text(config)
    (root / "t.csv").write_text("a,b,species\n" + "".join(f"{i % 7},{i % 5},{s}\n" for i, s in enumerate(SPECIES)))


def test_a_class_sorted_file_split_stratified_gives_every_class_to_every_part(tmp_path):
    _setup(tmp_path)
    proc = pe("train", "run.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    split = json.loads((tmp_path / "run" / "split.json").read_text())
    assert split["sizes"] == {"train": 18, "eval": 6, "test": 6}
    for part in ("eval_rows", "test_rows"):
        assert sorted(SPECIES[r] for r in split[part]) == ["Adelie"] * 2 + ["Chinstrap"] * 2 + ["Gentoo"] * 2
    prep = json.loads((tmp_path / "run" / "preprocessing.json").read_text())
    assert "t.csv, data.split's train part (18 samples)" in prep["fitted_on"]  # fitted on the train part only
    assert "held-out (data.split's eval part, 6 samples)" in proc.stdout


def test_the_split_is_the_runs_after_resume_and_in_pe_eval(tmp_path):
    _setup(tmp_path)
    proc = pe("train", "run.yaml", "--out", "run", "-q", "--max-steps", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    recorded = (tmp_path / "run" / "split.json").read_text()
    proc = pe("train", "run.yaml", "--resume", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "run" / "split.json").read_text() == recorded
    proc = pe("eval", "run.yaml", "--checkpoint", "run", "--split", "test", cwd=tmp_path)
    assert proc.returncode == 0 and "data.split's test part: 6 samples" in proc.stdout, proc.stderr
    assert json.loads((tmp_path / "run" / "test-step-6.json").read_text())["samples"] == 6
    proc = pe("train", "run.yaml", "--resume", "run", "data.split.seed=6", "epochs=3", cwd=tmp_path)
    assert proc.returncode != 0 and "data.split.seed is 6 here and 5 in the run" in proc.stderr
    with open(tmp_path / "t.csv", "a") as f:
        f.write("1,1,Adelie\n")
    proc = pe("eval", "run.yaml", "--checkpoint", "run", cwd=tmp_path)
    assert proc.returncode != 0 and "t.csv changed since the run split it" in proc.stderr


def test_data_eval_and_a_split_eval_fraction_together_are_a_config_error(tmp_path):
    _setup(tmp_path, CONFIG.replace("  batch_size: 6", "  eval: {format: csv, path: t.csv}\n  batch_size: 6"))
    proc = pe("train", "run.yaml", "--out", "run", cwd=tmp_path)
    assert (
        proc.returncode == 2 and "data.split.eval: data.eval and data.split.eval both give the eval rows" in proc.stderr
    )


def test_a_config_that_drops_the_runs_split_exits_2_and_a_stratum_per_row_is_named(tmp_path):
    _setup(tmp_path)
    proc = pe("train", "run.yaml", "--out", "run", "-q", "--max-steps", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = pe(
        "eval",
        "run.yaml",
        "--checkpoint",
        "run",
        "data.split=null",
        "data.eval={format: csv, path: t.csv, columns: {x: [a, b], y: species}}",
        cwd=tmp_path,
    )
    assert proc.returncode == 2 and "this config has no data.split" in proc.stderr, (
        proc.stderr
    )  # a config error, as a differing model is
    # x's (a, b) pairs are all different: a stratum per row leaves the held-out parts empty, and the error says why
    proc = pe("train", "run.yaml", "--out", "run2", "data.split.stratify=x", cwd=tmp_path)
    assert proc.returncode == 1 and "data.split.stratify 'x' has 30 values of at most 1 rows each" in proc.stderr, (
        proc.stderr
    )
    assert not (tmp_path / "run2").exists()


def test_pe_eval_of_a_split_run_with_one_hot_categories(tmp_path):
    """A one-hot feed's width is decided by the data (auto): pe eval filled it only after conforming the
    data to the feeds, and died in conform() (`internal error: UFuncTypeError`, issue 88); it gives the
    loss pe train gave on the same eval part."""
    (tmp_path / "m.yaml").write_text(
        "layers:\n  - logits: {type: fc, input: x, size: auto}\n"
        "  - xent: {type: softmax_with_cross_entropy, logits: logits, label: y}\n"
        "  - loss: {type: mean, x: xent}\nloss: loss\n"
    )
    config = CONFIG.replace("columns: {x: [a, b], y: species}", "columns: {x: [c, d], y: species}")
    (tmp_path / "run.yaml").write_text(config.replace("x: {kind: numeric}", "x: {kind: category, encoding: one_hot}"))
    (tmp_path / "t.csv").write_text(
        "c,d,species\n" + "".join(f"{'pqr'[i % 3]},{'uv'[i % 2]},{s}\n" for i, s in enumerate(SPECIES))
    )
    proc = pe("train", "run.yaml", "--out", "run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    trained = re.search(r"held-out \(data.split's eval part, 6 samples\): loss (\S+)", proc.stdout).group(1)
    proc = pe("eval", "run.yaml", "--checkpoint", "run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "data.split's eval part: 6 samples" in proc.stdout
    evaluated = float(re.search(r"^\s*loss: (\S+)$", proc.stdout, re.M).group(1))
    assert abs(evaluated - float(trained)) < 1e-4, (evaluated, trained)
