"""A one-hot category feed (``encoding: one_hot``, declared by data.preprocessing, its width fitted)
through the commands after training (issue 87): ``pe eval`` stopped with 'internal error:
UFuncTypeError' (the data met the feed's unfilled ``[auto]`` shape), and ``pe summary`` / ``pe graph``
of a model whose sizes are all written (no ``auto`` layer) with "'<' not supported between instances
of 'str' and 'int'". Real ``pe`` processes on generated penguins (data/penguins/make_penguins.py)."""

import json

from tests.cli.test_helpers import data_maker, pe


def _setup(root, size):
    data_maker("penguins").write(str(root / "penguins.csv"), 90, 4)
    (root / "model.yaml").write_text(
        f"layers: [out: {{type: fc, input: [measures, where], size: {size}}}]\n"
        "loss: {type: softmax_with_cross_entropy, logits: out, label: species}\n"
    )
    (root / "run.yaml").write_text("""\
model: model.yaml
epochs: 2
optimizer: {type: Adam, learning_rate: 0.05}
data:
  train: {format: csv, path: penguins.csv}
  split: {eval: 0.3, stratify: species}
  preprocessing:
    measures: {kind: numeric, columns: [bill_length_mm, bill_depth_mm, flipper_length_mm, body_mass_g]}
    where:    {kind: category, encoding: one_hot, columns: [island, sex]}
    species:  {kind: label}
""")


def test_eval_of_a_run_with_a_one_hot_feed(tmp_path):
    _setup(tmp_path, "auto")
    proc = pe("train", "run.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = pe("eval", "run.yaml", "-c", "run", "-o", "e.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "e.json") as f:
        result = json.load(f)
    assert result["samples"] == 27 and 0 <= result["prediction"]["top1_accuracy"] <= 1


def test_summary_and_graph_of_a_one_hot_feed_with_every_size_written(tmp_path):
    _setup(tmp_path, 3)
    table = pe("summary", "run.yaml", cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    rows = {line.split()[0]: line for line in table.stdout.splitlines() if "(" in line}
    assert "[-1, 7]" in rows["where"]  # island (3 and <unknown>) and sex (2 and <unknown>) side by side
    assert " 36 " in rows["out"]  # (4 + 7) x 3 + 3
    proc = pe("graph", "run.yaml", "-o", "g.dot", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "where" in (tmp_path / "g.dot").read_text()
