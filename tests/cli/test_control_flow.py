"""Control flow in model files and run configs, through real `pe train` runs:
configs/mnist_rows_dynamic_rnn.yaml (a dynamic_rnn layer whose step lists layers, with a memory) trains
and its loss falls; a static_rnn over image rows (time-major, a memory) trains too; a mistake inside a
block is one error naming the model file's line and what to do; a switch_schedule whose pieces are
schedules sets each step's rate, and a mistake inside a piece is named at its key."""

import json

import pytest

from tests.cli.test_helpers import REPO, pe

SMALL = [
    "data.train.limit=512",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=1",
    "fetch.every=4",
    "output.curves=false",
]


def _losses(run):
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r["loss"] for r in rows if r.get("phase") == "train"]


def test_dynamic_rnn_block_trains_and_its_loss_falls(tmp_path):
    run = tmp_path / "run"
    proc = pe("train", "configs/mnist_rows_dynamic_rnn.yaml", *SMALL, "--max-steps", "16", "--out", run, "-q")
    assert proc.returncode == 0, proc.stderr
    losses = _losses(run)
    assert len(losses) == 4 and losses[-1] < 0.8 * losses[0], losses
    acc = json.loads((run / "eval.json").read_text())["metrics"]["acc"]
    assert 0.0 <= acc <= 1.0


STATIC = """\
name: rows_static_rnn
include: {feeds}
layers:
  - image2d: {{type: reshape, x: image, shape: [-1, 28, 28]}}
  - by_row:  {{type: transpose, x: image2d, perm: [1, 0, 2]}}      # [28 rows, batch, 28]
  - rnn:
      type: static_rnn
      step_inputs: {{x: by_row}}
      memories:
        h: {{shape: [32], value: 0.0, update: h_new}}
      step:
        - h_new: {{type: fc, input: [x, h], size: 32, act: tanh}}
      outputs: h_new
  - last_row: {{type: slice, input: rnn, axes: [0], starts: [27], ends: [28]}}
  - last:     {{type: reshape, x: last_row, shape: [-1, 32]}}
  - logits:   {{type: fc, input: last, size: 10}}
  - xent:     {{type: softmax_with_cross_entropy, logits: logits, label: label}}
  - loss:     {{type: mean, x: xent}}
loss: loss
"""


FEEDS = f"{REPO}/models/mnist_feeds.yaml"


def _model(tmp_path, text):
    path = tmp_path / "model.yaml"
    path.write_text(text)
    return path


def test_static_rnn_block_trains(tmp_path):
    model = _model(tmp_path, STATIC.format(feeds=FEEDS))
    run = tmp_path / "run"
    proc = pe(
        "train",
        "configs/mnist_mlp.yaml",
        f"model={model}",
        *SMALL,
        "optimizer={type: Adam, learning_rate: 0.01}",
        "--max-steps",
        "16",
        "--out",
        run,
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    losses = _losses(run)
    assert len(losses) == 4 and losses[-1] < 0.8 * losses[0], losses


NESTED = """\
name: rows_nested_rnn
include: {feeds}
layers:
  - image2d: {{type: reshape, x: image, shape: [-1, 28, 28]}}
  - by_row:  {{type: transpose, x: image2d, perm: [1, 0, 2]}}
  - rnn:
      type: static_rnn
      step_inputs: {{x: by_row}}
      memories:
        h: {{shape: [32], value: 0.0, update: h_new}}
      step:
        - chunks:   {{type: reshape, x: x, shape: [-1, 4, 7]}}
        - by_chunk: {{type: transpose, x: chunks, perm: [1, 0, 2]}}    # a row as 4 chunks of 7 pixels
        - inner:
            type: static_rnn
            step_inputs: {{c: by_chunk}}
            memories:
              g: {{shape: [16], value: 0.0, update: g_new}}
            step:
              - g_new: {{type: fc, input: [c, g], size: 16, act: tanh}}
            outputs: g_new
        - last_chunk: {{type: slice, input: inner, axes: [0], starts: [3], ends: [4]}}
        - row_code:   {{type: reshape, x: last_chunk, shape: [-1, 16]}}
        - h_new: {{type: fc, input: [row_code, h], size: 32, act: tanh}}
      outputs: h_new
  - last_row: {{type: slice, input: rnn, axes: [0], starts: [27], ends: [28]}}
  - last:     {{type: reshape, x: last_row, shape: [-1, 32]}}
  - logits:   {{type: fc, input: last, size: 10}}
  - xent:     {{type: softmax_with_cross_entropy, logits: logits, label: label}}
  - loss:     {{type: mean, x: xent}}
loss: loss
"""


def test_a_static_rnn_nested_in_a_static_rnn_step_trains(tmp_path):
    """A block inside a block's step, in a model file: each row read as 4 chunks by an inner RNN."""
    model = _model(tmp_path, NESTED.format(feeds=FEEDS))
    run = tmp_path / "run"
    proc = pe(
        "train",
        "configs/mnist_mlp.yaml",
        f"model={model}",
        *SMALL,
        "optimizer={type: Adam, learning_rate: 0.01}",
        "--max-steps",
        "16",
        "--out",
        run,
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    losses = _losses(run)
    assert len(losses) == 4 and losses[-1] < 0.9 * losses[0], losses
    text = pe("graph", str(model), "--text").stdout
    assert "block 2 (parent 1)" in text, text[:2000]


BLOCK = """\
name: broken_block
include: {feeds}
layers:
  - image2d: {{type: reshape, x: image, shape: [-1, 28, 28]}}
  - by_row:  {{type: transpose, x: image2d, perm: [1, 0, 2]}}
  - rnn:
      type: static_rnn
      step_inputs: {{x: by_row}}
      memories:
        h: {{shape: [32], update: {update}}}
      step:
        - h_new: {{type: fc, input: [x, {ref}], size: 32, act: tanh}}
      outputs: [{output}]
  - logits: {{type: fc, input: image, size: 10}}
  - xent:   {{type: softmax_with_cross_entropy, logits: logits, label: label}}
  - loss:   {{type: mean, x: xent}}
loss: loss
"""
GOOD = {"update": "h_new", "ref": "h", "output": "h_new"}


@pytest.mark.parametrize(
    "mistake, line, expected",
    [
        ({"update": "h_nwe"}, 10, "memory 'h' is updated by 'h_nwe', which is not a layer of the step; did you mean"),
        ({"ref": "hidden"}, 12, "no feed or earlier layer named 'hidden'"),
        ({"ref": "image2d"}, 12, "'image2d' is outside the block"),
        ({"output": "h_old"}, 13, "'h_old' is not a layer of the step"),
    ],
)
def test_a_mistake_in_a_block_names_the_file_and_line(tmp_path, mistake, line, expected):
    model = _model(tmp_path, BLOCK.format(feeds=FEEDS, **dict(GOOD, **mistake)))
    proc = pe("train", "configs/mnist_mlp.yaml", f"model={model}", *SMALL, "--out", tmp_path / "run", "-q")
    assert proc.returncode == 2, proc.stderr
    assert f"model.yaml:{line}:" in proc.stderr and expected in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "run").exists()


SWITCH = (
    "optimizer={type: SGD, learning_rate: {type: switch_schedule, boundaries: [4, 8], values: ["
    "{type: linear_lr_warmup, learning_rate: 0.1, warmup_steps: 4, start_lr: 0.0, end_lr: 0.1}, 0.05, "
    "{type: exponential_decay, learning_rate: 0.1, decay_steps: 2, decay_rate: 0.5}]}}"
)


def test_switch_schedule_of_schedules_drives_the_run(tmp_path):
    run = tmp_path / "run"
    proc = pe(
        "train", "configs/mnist_mlp.yaml", *SMALL, SWITCH, "fetch.every=1", "--max-steps", "10", "--out", run, "-q"
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    rates = [r["lr"] for r in rows if r.get("phase") == "train"]
    # step s (0-based): warm up 0 -> 0.1 over 4 steps, then 0.05, then 0.1 * 0.5 ** (s / 2) from step 8
    want = [0.1 * s / 4 for s in range(4)] + [0.05] * 4 + [0.1 * 0.5 ** (s / 2) for s in (8, 9)]
    assert rates == pytest.approx(want, rel=1e-6)


def test_a_mistake_in_a_nested_schedule_is_named(tmp_path):
    bad = SWITCH.replace("warmup_steps: 4", "warmup_step: 4")
    proc = pe("train", "configs/mnist_mlp.yaml", bad, "--out", tmp_path / "run", "-q")
    assert proc.returncode == 2, proc.stderr
    assert "optimizer.learning_rate.values[0].warmup_step: unknown argument 'warmup_step'" in proc.stderr, proc.stderr
    assert "did you mean 'warmup_steps'" in proc.stderr, proc.stderr


def test_every_mistake_in_a_block_is_reported_at_once(tmp_path):
    text = BLOCK.format(feeds=FEEDS, update="h_nwe", ref="image2d", output="h_old")
    model = _model(tmp_path, text.replace("step_inputs: {x: by_row}", "step_inputs: {x: by_rwo}"))
    proc = pe("train", "configs/mnist_mlp.yaml", f"model={model}", *SMALL, "--out", tmp_path / "run", "-q")
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "model.yaml:" in line]
    assert [line.split(":")[1] for line in lines] == ["8", "10", "12", "13"], proc.stderr
    assert "did you mean 'by_row'" in lines[0] and "did you mean 'h_new'" in lines[1]
