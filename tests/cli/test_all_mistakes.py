"""All the mistakes of a config or model file at once (issue 18, item 7): one line each, in the
order of the file, each with its file:line:col, the key and the fix; at most 20 shown; exit 2."""

import re

from tests.cli.test_helpers import REPO, pe

LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<rest>.+)$")

CONFIG = """\
model: {model}
epochs: "three"
data:
  train: {{format: mnist, path: {data}, split: train}}
  batch_size: -4
  shufle: true
fetch: {{every: 0}}
outptu: {{dir: x}}
"""


def _lines(proc):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and not proc.stdout
    lines = proc.stderr.strip().splitlines()
    parsed = [LINE.match(line) for line in lines]
    assert all(parsed), lines
    return parsed


def test_every_mistake_of_a_run_config_is_listed_in_file_order(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(CONFIG.format(model=f"{REPO}/models/mlp.yaml", data=f"{REPO}/data/mnist"))
    parsed = _lines(pe("train", path, "--out", tmp_path / "run"))
    assert [int(m["line"]) for m in parsed] == [2, 5, 6, 7, 8]
    assert {m["file"] for m in parsed} == {str(path)}
    rest = [m["rest"] for m in parsed]
    assert rest[0].startswith("epochs: expected an integer, got 'three'")
    assert rest[2] == "data.shufle: unknown key 'shufle' in 'data'; did you mean 'shuffle'?"
    assert rest[4].startswith("outptu: unknown key 'outptu' in the top level; did you mean 'output'?")
    assert not (tmp_path / "run").exists()


def test_every_mistake_of_the_layers_is_listed(tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text("""\
name: m
feeds:
  image: {shape: [1, 28, 28], dtype: float32}
  label: {shape: [1], dtype: int64}
layers:
  - fc1: {type: fcc, input: image, size: 10}
  - xent: {type: softmax_with_cross_entropy, logits: fc1, label: label, sof_label: false}
  - loss: {type: mean, x: xnet}
loss: loss
""")
    parsed = _lines(pe("summary", model))
    assert [m["rest"].split(":")[0] for m in parsed] == [
        "layers[0].fc1.type",
        "layers[1].xent.sof_label",
        "layers[2].loss.x",
    ]
    assert "did you mean 'xent'?" in parsed[2]["rest"]  # fc1's mistake does not hide the others


def test_at_most_twenty_are_shown(tmp_path):
    path = tmp_path / "many.yaml"
    path.write_text(f"model: {REPO}/models/mlp.yaml\n" + "".join(f"typo{i}: 1\n" for i in range(25)))
    proc = pe("train", path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 21 and lines[-1] == "... and 5 more mistakes"
    assert lines[0].startswith(f"{path}:2:1: typo0: unknown key 'typo0' in the top level")
