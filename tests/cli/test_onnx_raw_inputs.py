"""ONNX exports that take raw rows (issue 77, item 11), through real `pe` processes on generated
data: a table of a category, a number and a short code (a character-tokenized text) with a class
label, trained a few steps and exported with `pe export --onnx`; onnxruntime on the raw strings and
numbers gives `pe predict`'s probabilities (1e-5), classes and class names, and a category value
the training split lacked gets the unknown id (0)."""
import csv

import numpy as np
import pytest

from tests.cli.test_helpers import pe

MODEL = """\
name: parcels
feeds:
  color:  {shape: [1], dtype: int64}
  weight: {shape: [1], dtype: float32}
  code:   {shape: [1], dtype: int64, lod_level: 1}
  size:   {shape: [1], dtype: int64}
layers:
  - col:     {type: embedding, input: color, size: [4, 3]}
  - col_vec: {type: reshape, x: col, shape: [-1, 3]}
  - chars:   {type: embedding, input: code, size: [8, 3]}
  - pooled:  {type: sequence_pool, input: chars, pool_type: sum}
  - joined:  {type: concat, input: [col_vec, weight, pooled], axis: 1}
  - hidden:  {type: fc, input: joined, size: 8, act: tanh}
  - logits:  {type: fc, input: hidden, size: 3}
  - xent:    {type: softmax_with_cross_entropy, logits: logits, label: size}
  - loss:    {type: mean, x: xent}
loss: loss
fetches: [loss]
"""

CONFIG = """\
model: parcels.yaml
seed: 1
epochs: 2
data:
  train: {format: csv, path: parcels.csv}
  batch_size: 16
  preprocessing:
    color:  {kind: category, max_vocabulary: 4}
    weight: {kind: numeric, fill: median}
    code:   {kind: text, tokenizer: character, max_length: 4, max_vocabulary: 8}
    size:   {kind: label}
optimizer: {type: SGD, learning_rate: 0.5}
output: {curves: false}
"""


def _rows(n, seed, colors=("red", "green", "blue")):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        weight = rng.uniform(0, 30)
        code = "".join(rng.choice(list("abcdef"), rng.integers(0, 7)))
        rows.append({"color": colors[i % len(colors)], "weight": "" if i % 7 == 3 else f"{weight:.3f}",
                     "code": code.upper() if i % 2 else code,
                     "size": ["small", "medium", "large"][min(int(weight // 10), 2)]})
    return rows


def _write(path, rows, names):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, names, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("raw_inputs")
    (root / "parcels.yaml").write_text(MODEL)
    (root / "run.yaml").write_text(CONFIG)
    _write(root / "parcels.csv", _rows(96, 0), ["color", "weight", "code", "size"])
    proc = pe("train", root / "run.yaml", "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    proc = pe("export", root / "run.yaml", "-c", root / "run", "--onnx", root / "m.onnx")
    assert proc.returncode == 0, proc.stderr
    assert "(inputs color, weight, code)" in proc.stdout
    assert "outputs: logits.tmp_1, prob, class, class_name" in proc.stdout
    # new rows: colors the training split never had (and an empty one), codes longer than max_length
    new = _rows(40, 1, colors=("red", "purple", "green", "", "blue", "Red"))
    new[0]["code"] = "abcdefabc"
    _write(root / "new.csv", new, ["color", "weight", "code"])
    proc = pe("predict", root / "run.yaml", "--checkpoint", root / "run", "--data", root / "new.csv",
              "-o", root / "p.npz", "-q")
    assert proc.returncode == 0, proc.stderr
    feeds = {"color": np.array([[r["color"]] for r in new], dtype=object),
             "weight": np.array([[float(r["weight"]) if r["weight"] else np.nan] for r in new], np.float32),
             "code": np.array([[r["code"]] for r in new], dtype=object)}
    return root, feeds, dict(np.load(root / "p.npz"))


def test_onnxruntime_on_raw_rows_gives_pe_predicts_answer(exported):
    ort = pytest.importorskip("onnxruntime", reason="the dev extra installs onnxruntime")
    root, feeds, want = exported
    session = ort.InferenceSession(str(root / "m.onnx"), providers=["CPUExecutionProvider"])
    got = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    assert got["prob"].shape == want["prob"].shape == (40, 3)
    assert np.ptp(want["prob"][:, 0]) > 0.01        # the rows differ far beyond the tolerance
    np.testing.assert_allclose(got["prob"], want["prob"], rtol=0, atol=1e-5)
    assert (got["class"] == want["class"]).all()
    assert got["class_name"].tolist() == want["class_name"].tolist()
    assert set(want["class_name"]) <= {"small", "medium", "large"}


def test_an_unknown_category_gets_the_unknown_id(exported):
    onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed (pip install 'pe-cli[onnx]')")
    ort = pytest.importorskip("onnxruntime", reason="the dev extra installs onnxruntime")
    root, feeds, _ = exported
    model = onnx.load(str(root / "m.onnx"))
    model.graph.output.append(onnx.helper.make_tensor_value_info("color.ids", onnx.TensorProto.INT64, ["N", 1]))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ids = session.run(["color.ids"], feeds)[0][:, 0]
    colors = feeds["color"][:, 0]
    known = {c: ids[colors == c][0] for c in ("red", "green", "blue")}
    assert sorted(known.values()) == [1, 2, 3]
    assert (ids[np.isin(colors, ["purple", "", "Red"])] == 0).all()     # never seen in training: <unknown>
