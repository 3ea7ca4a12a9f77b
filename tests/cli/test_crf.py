"""A sequence tagger as a YAML model file: linear_chain_crf, crf_decoding and chunk_eval by name,
word ids and per-word tags from ragged .npz columns; `pe train` lowers the loss and `pe eval`
reports the chunk F1 and the per-word tag accuracy of the decoded path well above chance."""

import json

import numpy as np

from tests.cli.test_helpers import pe
from tests.layers.test_crf_tagging import LABELS, TYPES, VOCAB, make_batch

MODEL = f"""
name: tagger
feeds:
  word:   {{shape: [1], dtype: int64, lod_level: 1}}
  target: {{shape: [1], dtype: int64, lod_level: 1}}
layers:
  - emb:     {{type: embedding, input: word, size: [{VOCAB}, 16]}}
  - hidden:  {{type: fc, input: emb, size: 32, act: tanh}}
  - feature: {{type: fc, input: hidden, size: {LABELS}}}
  - cost:    {{type: linear_chain_crf, input: feature, label: target, param_attr: crfw}}
  - loss:    {{type: mean, x: cost}}
  - decoded: {{type: crf_decoding, input: feature, param_attr: crfw}}
  - chunks:  {{type: chunk_eval, input: decoded, label: target, chunk_scheme: IOB, num_chunk_types: {TYPES}}}
loss: loss
fetches: [loss, "chunks[2]"]
"""

CONFIG = """
model: tagger.yaml
seed: 1
epochs: 4
data:
  train: {format: npz, path: tags.npz, stop: 256}
  eval:  {format: npz, path: tags.npz, start: 256}
  batch_size: 16
  eval_batch_size: 64
optimizer: {type: Adam, learning_rate: 0.05}
fetch: {every: 16}
"""


def _write(tmp_path):
    feed = make_batch(np.random.default_rng(2), 320)
    arrays = {}
    for name in ("word", "target"):
        arrays[name] = np.asarray(feed[name])
        arrays[f"{name}_lengths"] = np.diff(feed[name].lod()[0]).astype("int64")
    np.savez(tmp_path / "tags.npz", **arrays)
    (tmp_path / "tagger.yaml").write_text(MODEL)
    (tmp_path / "run.yaml").write_text(CONFIG)


def test_yaml_tagger_trains_and_evaluates(tmp_path):
    _write(tmp_path)
    run = tmp_path / "run"
    proc = pe("train", tmp_path / "run.yaml", "output.curves=false", "--out", run, "-q")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    losses = [r["loss"] for r in rows if r["phase"] == "train"]
    assert losses[-1] < 0.3 * losses[0], losses
    ev = pe("eval", tmp_path / "run.yaml", "--checkpoint", run)
    assert ev.returncode == 0, ev.stderr
    result = json.loads(next(run.glob("eval-step-*.json")).read_text())
    assert result["metrics"]["chunks[2]"] > 0.8, result["metrics"]
    prediction = result["prediction"]  # the decoded tag path, one tag id per word
    assert prediction["output"] == "decoded" and prediction["top1_accuracy"] > 0.9, prediction["top1_accuracy"]
