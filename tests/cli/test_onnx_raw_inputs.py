"""ONNX exports that take raw rows (issue 77, item 11), through real `pe` processes on generated
data: a table of a category, a number, a short code (a character-tokenized text), a note (the
default tokenizer, space_punct: punctuation, Unicode letters and digits, underscores, capitals,
empty notes) and a tag (a regex tokenizer) with a class label, trained a few steps and exported
with `pe export --onnx`; onnxruntime on the raw strings and numbers gives `pe predict`'s
probabilities (1e-5), classes and class names, the text feeds the ids pe's tokenizers give, a
category value the training split lacked gets the unknown id (0) and a missing one (empty, NA)
its fill value's id; a one-hot category over two columns (color and box, each its own vocabulary)
is one-hot in the graph as pe predict makes it."""

import csv
import json

import numpy as np
import pytest

from pe_cli.data.vocabulary import lookup, tokenizer
from tests.cli.test_helpers import pe

MODEL = """\
name: parcels
feeds:
  color:  {shape: [1], dtype: int64}
  weight: {shape: [1], dtype: float32}
  code:   {shape: [1], dtype: int64, lod_level: 1}
  note:   {shape: [1], dtype: int64, lod_level: 1}
  tag:    {shape: [1], dtype: int64, lod_level: 1}
  size:   {shape: [1], dtype: int64}
layers:
  - col:     {type: embedding, input: color, size: [4, 3]}
  - col_vec: {type: reshape, x: col, shape: [-1, 3]}
  - chars:   {type: embedding, input: code, size: [8, 3]}
  - pooled:  {type: sequence_pool, input: chars, pool_type: sum}
  - words:   {type: embedding, input: note, size: [40, 3]}
  - wpooled: {type: sequence_pool, input: words, pool_type: sum}
  - tags:    {type: embedding, input: tag, size: [8, 2]}
  - tpooled: {type: sequence_pool, input: tags, pool_type: sum}
  - joined:  {type: concat, input: [col_vec, weight, pooled, wpooled, tpooled, where], axis: 1}
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
    color:  {kind: category, max_vocabulary: 4, fill: red}
    weight: {kind: numeric, fill: median}
    code:   {kind: text, tokenizer: character, max_length: 4, max_vocabulary: 8}
    note:   {kind: text, max_length: 7, max_vocabulary: 40}
    tag:    {kind: text, tokenizer: regex, pattern: "[a-z]+(?:'[a-z]+)?", max_length: 3, max_vocabulary: 8}
    where:  {kind: category, encoding: one_hot, columns: [color, box]}
    size:   {kind: label}
optimizer: {type: SGD, learning_rate: 0.5}
output: {curves: false}
"""


# the note's words: punctuation on and between words, Unicode letters (a capital, a mark that is no
# word character: "e\u0301"), digits (Arabic-Indic, a superscript), underscores, an emoji, a no-break space
WORDS = [
    "match",
    "match.",
    "Match!",
    "café",
    "CAFÉ,",
    "naïve",
    "Straße",
    "日本語",
    "x²",
    "a_b",
    "3.14",
    "١٢٣",
    "e\u0301t\u00e9",
    "(ok)",
    "don't",
    "--",
    "👍",
    "snake_case_2",
    "\u00a0",
    "σας",
    "q&a",
    "Ünïcödé",
]
TAGS = ["it's", "ok", "Don't", "x-y", "a1b", "''"]


def _rows(n, seed, colors=("red", "green", "blue"), boxes=("crate", "bag", "tube", "bag")):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        weight = rng.uniform(0, 30)
        code = "".join(rng.choice(list("abcdef"), rng.integers(0, 7)))
        note = " ".join(rng.choice(WORDS, rng.integers(0, 9))) if i % 9 != 4 else ""
        rows.append(
            {
                "color": colors[i % len(colors)],
                "weight": "" if i % 7 == 3 else f"{weight:.3f}",
                "code": code.upper() if i % 2 else code,
                "note": note,
                "tag": " ".join(rng.choice(TAGS, rng.integers(0, 4))),
                "box": boxes[i % len(boxes)],
                "size": ["small", "medium", "large"][min(int(weight // 10), 2)],
            }
        )
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
    _write(root / "parcels.csv", _rows(96, 0), ["color", "weight", "code", "note", "tag", "box", "size"])
    proc = pe("train", root / "run.yaml", "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    proc = pe("export", root / "run.yaml", "-c", root / "run", "--onnx", root / "m.onnx")
    assert proc.returncode == 0, proc.stderr
    assert "(inputs color, weight, code, note, tag, where)" in proc.stdout
    assert "outputs: logits.tmp_1, prob, class, class_name" in proc.stdout
    # new rows: colors the training split never had (and an empty one), codes longer than max_length
    new = _rows(
        40, 1, colors=("red", "purple", "green", "", "blue", "Red", "NA"), boxes=("bag", "crate", "NA", "tube", "sack")
    )
    new[0]["code"] = "abcdefabc"
    new[1]["note"] = "Match! match... " * 3  # more tokens than max_length
    new[2]["note"], new[3]["note"] = "ZEBRA? ǅungla_9 ok", ""  # words training never saw; an empty note
    _write(root / "new.csv", new, ["color", "weight", "code", "note", "tag", "box"])
    proc = pe(
        "predict",
        root / "run.yaml",
        "--checkpoint",
        root / "run",
        "--data",
        root / "new.csv",
        "-o",
        root / "p.npz",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    feeds = {
        "color": np.array([[r["color"]] for r in new], dtype=object),
        "weight": np.array([[float(r["weight"]) if r["weight"] else np.nan] for r in new], np.float32),
        **{k: np.array([[r[k]] for r in new], dtype=object) for k in ("code", "note", "tag")},
        "where": np.array([[r["color"], r["box"]] for r in new], dtype=object),
    }
    return root, feeds, dict(np.load(root / "p.npz"))


def test_onnxruntime_on_raw_rows_gives_pe_predicts_answer(exported):
    import onnxruntime as ort

    root, feeds, want = exported
    session = ort.InferenceSession(str(root / "m.onnx"), providers=["CPUExecutionProvider"])
    got = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    assert got["prob"].shape == want["prob"].shape == (40, 3)
    assert np.ptp(want["prob"][:, 0]) > 0.01  # the rows differ far beyond the tolerance
    np.testing.assert_allclose(got["prob"], want["prob"], rtol=0, atol=1e-5)
    assert (got["class"] == want["class"]).all()
    assert got["class_name"].tolist() == want["class_name"].tolist()
    assert set(want["class_name"]) <= {"small", "medium", "large"}


def test_a_one_hot_category_is_one_hot_in_the_graph(exported):
    """color and box side by side: per column its vocabulary's slot; a value training never saw
    (purple, Red, sack) or a missing one (empty, NA: this feed has no fill) its column's unknown slot."""
    import onnx
    import onnxruntime as ort

    root, feeds, _ = exported
    model = onnx.load(str(root / "m.onnx"))
    model.graph.output.append(onnx.helper.make_empty_tensor_value_info("where.one_hot"))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(["where.one_hot"], feeds)[0]
    colors, boxes = json.loads((root / "run" / "preprocessing.json").read_text())["feeds"]["where"]["vocabularies"]
    assert got.dtype == np.float32 and got.shape == (40, len(colors) + len(boxes)) == (40, 4 + 4)
    for (color, box), row in zip(feeds["where"], got):
        want = np.zeros(8, np.float32)
        want[colors.index(color) if color in colors else 0] = 1
        want[4 + (boxes.index(box) if box in boxes else 0)] = 1
        assert row.tolist() == want.tolist(), (color, box)


def test_an_unknown_category_gets_the_unknown_id(exported):
    import onnx
    import onnxruntime as ort

    root, feeds, _ = exported
    model = onnx.load(str(root / "m.onnx"))
    model.graph.output.append(onnx.helper.make_tensor_value_info("color.ids", onnx.TensorProto.INT64, ["N", 1]))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ids = session.run(["color.ids"], feeds)[0][:, 0]
    colors = feeds["color"][:, 0]
    known = {c: ids[colors == c][0] for c in ("red", "green", "blue")}
    assert sorted(known.values()) == [1, 2, 3]
    assert (ids[np.isin(colors, ["purple", "Red"])] == 0).all()  # never seen in training: <unknown>
    assert (ids[np.isin(colors, ["", "NA"])] == known["red"]).all()  # missing: the feed's fill, red


def test_the_text_feeds_get_pe_tokenizers_ids_in_the_graph(exported):
    """The default tokenizer (space_punct) and a regex one run in the graph: each note's and tag's ids
    and lengths are those pe's own tokenizers and the run's vocabularies give (max_length cut, an
    empty text one <pad>)."""
    import onnx
    import onnxruntime as ort

    root, feeds, _ = exported
    model = onnx.load(str(root / "m.onnx"))
    names = ["note.ids", "note_lengths", "tag.ids", "tag_lengths"]
    model.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = dict(zip(names, session.run(names, feeds)))
    states = json.loads((root / "run" / "preprocessing.json").read_text(encoding="utf-8"))["feeds"]
    for feed in ("note", "tag"):
        state = states[feed]
        split = tokenizer(state["tokenizer"], state["pattern"], state["lowercase"])
        want = [lookup(state["vocabulary"], split(t)[: state["max_length"]]) for t in feeds[feed][:, 0]]
        want = [w if len(w) else np.zeros(1, np.int64) for w in want]
        assert got[f"{feed}_lengths"].tolist() == [len(w) for w in want]
        assert [g[: len(w)].reshape(-1).tolist() for g, w in zip(got[f"{feed}.ids"], want)] == [
            w.tolist() for w in want
        ]
    vocabulary = states["note"]["vocabulary"]
    assert {"match", ".", "!", "café", "日本語", "a_b", "x²", "\u0301"} <= set(vocabulary)
    assert 1 in np.concatenate(want) and 1 in got["note_lengths"]  # unknown words; an empty note
