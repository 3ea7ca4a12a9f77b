"""data.preprocessing in-process: fitted on the training split only, each kind's saved state and its
application, tables read by column name, and the config's mistakes named at their key."""

import re
import json

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.config import ConfigError, load_config
from pe_cli.data.preprocessing import Preprocessing
from pe_cli.data.unscaling import unscaled
from pe_cli.data.ragged import Ragged
from pe_cli.data.readers import DataError
from pe_cli.data.tables import read_table
from pe_cli.run.build import load_columns
from pe_cli.run.predict import read_feeds
from pe_cli.run.preprocessing import fill_data_sizes, fit_preprocessing

MODEL = """\
feeds:
  x:    {shape: [2]}
  kind: {shape: [1], dtype: int64}
  text: {shape: [1], dtype: int64, lod_level: 1}
  y:    {shape: [1], dtype: int64}
layers:
  - e:      {type: embedding, input: text, size: [50, 4]}
  - p:      {type: sequence_pool, input: e, pool_type: average}
  - k:      {type: embedding, input: kind, size: [5, 2]}
  - k2:     {type: reshape, x: k, shape: [-1, 2]}
  - j:      {type: concat, input: [p, k2, x], axis: 1}
  - logits: {type: fc, input: j, size: 2}
  - xent:   {type: softmax_with_cross_entropy, logits: logits, label: y}
  - loss:   {type: mean, x: xent}
loss: loss
"""

CONFIG = """\
model: m.yaml
data:
  train: {format: csv, path: t.csv, stop: 6, columns: {x: [a, b]}}
  eval: {format: csv, path: t.csv, start: 6, columns: {x: [a, b]}}
  batch_size: 2
  preprocessing:
    x: {kind: numeric, fill: median}
    kind: {kind: category, min_count: 2}
    text: {kind: text, max_length: 3}
    y: {kind: label}
"""

# the last two rows are data.eval: their huge values and new words would move every statistic
TABLE = """\
b,a,kind,text,y,unused
1,10,red,The cat sat,yes,z
2,,red,the dog,no,z
3,30,blue,a cat ran far away,yes,z
,40,blue,dog,no,z
5,50,green,cat cat,yes,z
6,60,red,,no,z
1000,9000,purple,zebra zebra zebra,maybe,z
2000,8000,purple,zebra,no,z
"""


@pytest.fixture
def cfg(tmp_path):
    (tmp_path / "m.yaml").write_text(MODEL)
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "run.yaml").write_text(CONFIG)
    return load_config(str(tmp_path / "run.yaml"))


def test_fitted_on_the_training_split_only(cfg):
    prep = fit_preprocessing(cfg)
    x = prep.feeds["x"]
    assert x["column"] == ["a", "b"] and x["fill_value"] == [40.0, 3.0]  # medians of the 6 training rows
    a = np.array([10, 40, 30, 40, 50, 60], np.float32)  # the missing a filled with 40
    b = np.array([1, 2, 3, 3, 5, 6], np.float32)
    assert x["shift"] == pytest.approx([a.mean(), b.mean()], rel=1e-6)
    assert x["divide"] == pytest.approx([a.std(), b.std()], rel=1e-5)
    assert prep.feeds["kind"]["vocabulary"] == ["<unknown>", "red", "blue"]  # green: once; purple: eval only
    vocab = prep.feeds["text"]["vocabulary"]
    assert vocab[:4] == ["<pad>", "<unknown>", "cat", "dog"] and "zebra" not in vocab
    assert prep.feeds["y"]["classes"] == ["no", "yes"]
    saved = json.loads(prep.to_text())
    assert saved["version"] == 1 and saved["feeds"] == prep.feeds and "6 samples" in saved["fitted_on"]


def test_applied_to_the_eval_split_without_refitting(cfg):
    prep = fit_preprocessing(cfg)
    with pytest.raises(ConfigError, match="class 'maybe' .* was not in the training data"):
        load_columns(cfg, "eval", prep)
    train = load_columns(cfg, "train", prep)
    assert train["x"].dtype == np.float32 and abs(float(train["x"][:, 0].mean())) < 1e-6
    assert train["kind"].ravel().tolist() == [1, 1, 2, 2, 0, 1]
    text = train["text"]
    assert isinstance(text, Ragged) and text.lengths.tolist() == [3, 2, 3, 1, 2, 1]  # max_length 3; '' is one <pad>
    vocab = prep.feeds["text"]["vocabulary"]
    assert text.values[-1, 0] == 0 and text.values[:3, 0].tolist() == [vocab.index(w) for w in ("the", "cat", "sat")]
    assert train["y"].ravel().tolist() == [1, 0, 1, 0, 1, 0]


def test_padded_text_fills_its_lengths_feed(tmp_path):
    (tmp_path / "m.yaml").write_text(
        MODEL.replace(
            "text: {shape: [1], dtype: int64, lod_level: 1}",
            "text: {shape: [4], dtype: int64}\n  n: {shape: [1], dtype: int64}",
        ).replace(
            "  - e:      {type: embedding, input: text, size: [50, 4]}\n"
            "  - p:      {type: sequence_pool, input: e, pool_type: average}\n",
            "  - p:      {type: cast, x: n, dtype: float32}\n",
        )
    )
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "run.yaml").write_text(
        CONFIG.replace(
            "text: {kind: text, max_length: 3}",
            "text: {kind: text, max_length: 4, tokenizer: character, sequence: padded, lengths_feed: n}",
        )
    )
    cfg = load_config(str(tmp_path / "run.yaml"))
    columns = load_columns(cfg, "train", fit_preprocessing(cfg))
    assert columns["text"].shape == (6, 4) and columns["n"].ravel().tolist() == [4, 4, 4, 3, 4, 1]
    vocab = fit_preprocessing(cfg).feeds["text"]["vocabulary"]
    assert columns["text"][3].tolist() == [vocab.index(c) for c in "dog"] + [0]  # padded with <pad>


def test_a_preprocessing_file_of_another_version_is_refused(tmp_path, cfg):
    path = tmp_path / "preprocessing.json"
    path.write_text(fit_preprocessing(cfg).to_text().replace('"version": 1', '"version": 99'))
    with pytest.raises(DataError, match="version: 99; this pe reads version 1"):
        Preprocessing.read(str(path))


def test_a_saved_target_names_a_numeric_feed(tmp_path, cfg):
    """An export's copy names the output that predicts a numeric feed; it reads back, and a target
    that is not a numeric feed is refused in one line."""
    prep = fit_preprocessing(cfg).with_target("x", "pred.tmp_1")
    path = tmp_path / "preprocessing.json"
    path.write_text(prep.to_text())
    ((output, steps),) = Preprocessing.read(str(path)).target_unscaling().items()
    state = prep.feeds["x"]
    assert output == "pred.tmp_1" and [op for op, _ in steps] == ["Mul", "Add"]
    z = np.array([[-1.0, 0.5], [0.0, 2.0]], np.float32)  # x: two columns, each its own statistics
    assert np.array_equal(unscaled(steps, z), (z * np.array(state["divide"]) + state["shift"]).astype(np.float32))
    path.write_text(prep.to_text().replace('"feed": "x"', '"feed": "text"'))
    with pytest.raises(DataError, match="target: must name a numeric feed and an output variable"):
        Preprocessing.read(str(path))
    several = fit_preprocessing(cfg).with_targets([("x", "a.tmp_1"), ("x", "b.tmp_1")])  # several outputs
    path.write_text(several.to_text())
    units = Preprocessing.read(str(path)).target_unscaling()
    assert list(units) == ["a.tmp_1", "b.tmp_1"]
    assert all(np.array_equal(unscaled(u, z), unscaled(steps, z)) for u in units.values())
    path.write_text(several.to_text().replace('"output": "b.tmp_1"', '"output": 3'))
    with pytest.raises(DataError, match="target: must name a numeric feed and an output variable"):
        Preprocessing.read(str(path))


def test_tables_by_column_name(tmp_path):
    (tmp_path / "t.tsv").write_text("b\ta\n1\t2\n3\t4\n")
    (tmp_path / "t.jsonl").write_text('{"a": 2, "b": 1}\n\n{"b": 3, "a": 4, "c": "extra"}\n')
    for name in ("t.tsv", "t.jsonl"):
        table = read_table(str(tmp_path / name), name.split(".")[1])
        assert table.numbers(["a", "b"]).tolist() == [[2, 1], [4, 3]]
    with pytest.raises(DataError, match=r"t.jsonl has no column 'd'"):
        table.numbers(["d"])
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(DataError, match=r"bad.jsonl:2: a JSON list, not an object"):
        read_table(str(tmp_path / "bad.jsonl"), "jsonl")


@pytest.mark.parametrize(
    "entry, where, message",
    [
        (
            "{kind: numeric, tokenizer: regex}",
            "data.preprocessing.x.tokenizer",
            "'tokenizer' does not apply to a numeric",
        ),
        ("{kind: numeric, fill: average}", "data.preprocessing.x.fill", "neither a number nor one of mean"),
        ("{kind: text, tokenizer: regex}", "data.preprocessing.x.pattern", "pattern goes with tokenizer: regex"),
        ("{kind: text, tokenizer: regex, pattern: '[a-'}", "data.preprocessing.x.pattern", "not a regular expression"),
        ("{kind: text, sequence: padded}", "data.preprocessing.x.lengths_feed", "takes lengths_feed"),
        ("{kind: image, size: [28]}", "data.preprocessing.x.size", "size is [height, width]"),
        ("{kind: pixels}", "data.preprocessing.x.kind", "'pixels' is not one of numeric"),
        ("{kind: category, columns: [a, b]}", "data.preprocessing.x.columns", "or encoding: one_hot for a list"),
    ],
)
def test_config_mistakes_are_named_at_their_key(tmp_path, entry, where, message):
    (tmp_path / "m.yaml").write_text(MODEL)
    (tmp_path / "t.csv").write_text(TABLE)
    text = CONFIG.split("  preprocessing:")[0] + f"  preprocessing:\n    x: {entry}\n"
    (tmp_path / "run.yaml").write_text(text)
    with pytest.raises(ConfigError, match=re.escape(where) + ".*" + re.escape(message)):
        load_config(str(tmp_path / "run.yaml"))


def test_predict_reads_a_plain_table_by_name(tmp_path):
    """The feeds without preprocessing too (issue 56: columns were taken by position)."""
    (tmp_path / "a.csv").write_text("x0,x1,x2\n1,2,3\n4,5,6\n")
    (tmp_path / "b.csv").write_text("x2,extra,x0,x1\n3,9,1,2\n6,9,4,5\n")
    columns = {"x": ["x0", "x1", "x2"]}
    a, b = (read_feeds(str(tmp_path / n), ["x"], columns)["x"] for n in ("a.csv", "b.csv"))
    assert a.tolist() == b.tolist() == [[1, 2, 3], [4, 5, 6]]
    with pytest.raises(PeError, match="has no column 'x1' for feed 'x'"):
        (tmp_path / "c.csv").write_text("x0,x2\n1,3\n")
        read_feeds(str(tmp_path / "c.csv"), ["x"], columns)


def test_class_folders_take_the_classes_in_turn(tmp_path):
    """The first N samples of a folders source hold every class (pe smoke --samples, a limit)."""
    from pe_cli.data.images import class_folders

    for name, count in (("cat", 3), ("dog", 1), ("eel", 2)):
        (tmp_path / name).mkdir()
        for i in range(count):
            (tmp_path / name / f"{i}.png").write_bytes(b"")
    paths, names = class_folders(str(tmp_path))
    assert names == ["cat", "dog", "eel", "cat", "eel", "cat"]
    assert [p.split("/")[-1] for p in paths] == ["0.png", "0.png", "0.png", "1.png", "1.png", "2.png"]


@pytest.mark.parametrize("fill, want", [(None, 0), ("red", 1)])
def test_a_missing_category_is_its_fill_value_or_the_unknown_id_and_missing_text_is_empty(tmp_path, cfg, fill, want):
    (tmp_path / "t.csv").write_text(TABLE.replace("3,30,blue,a cat ran far away", "3,30,?,NA"))
    cfg = load_config(str(tmp_path / "run.yaml"), [f"data.preprocessing.kind.fill={fill}"] if fill else [])
    prep = fit_preprocessing(cfg)
    assert prep.feeds["kind"]["vocabulary"] == ["<unknown>", "red"]  # '?' is no value (blue: once, min_count 2)
    train = load_columns(cfg, "train", prep)
    assert train["kind"].ravel()[2] == want
    assert train["text"].lengths.tolist()[2] == 1 and "na" not in prep.feeds["text"]["vocabulary"]


def test_a_one_hot_category_reads_its_columns_side_by_side(tmp_path):
    """encoding: one_hot over [kind, unused, y]: each column its own vocabulary (<unknown> first), a row
    the columns' one-hot rows side by side, float32, the feed declared [9] for an fc once fitted; a value
    training never saw (purple) and a missing one (?) are the unknown slot of their column."""
    (tmp_path / "m.yaml").write_text(
        "feeds:\n  y: {shape: [1], dtype: int64}\nlayers:\n"
        "  - out: {type: fc, input: [where], size: auto}\n"
        "loss: {type: softmax_with_cross_entropy, logits: out, label: y}\n"
    )
    (tmp_path / "t.csv").write_text(TABLE.replace("6,60,red", "6,60,?"))
    (tmp_path / "run.yaml").write_text(
        "model: m.yaml\ndata:\n  train: {format: csv, path: t.csv, stop: 6}\n"
        "  preprocessing:\n    where: {kind: category, encoding: one_hot, "
        "columns: [kind, unused, y]}\n    y: {kind: label}\n"
    )
    cfg = load_config(str(tmp_path / "run.yaml"))
    prep = fit_preprocessing(cfg)
    state = prep.feeds["where"]
    assert (
        state["vocabularies"] == [["<unknown>", "blue", "red", "green"], ["<unknown>", "z"], ["<unknown>", "no", "yes"]]
        and "vocabulary" not in state
    )
    path = tmp_path / "preprocessing.json"
    path.write_text(prep.to_text())
    assert Preprocessing.read(str(path)).feeds == prep.feeds  # the saved file passes the load checks
    fill_data_sizes(cfg, prep)
    assert cfg.model.feeds["where"].shape == [9] and cfg.model.feeds["where"].dtype == "float32"
    got = load_columns(cfg, "train", prep)["where"]
    assert got.dtype == np.float32 and got.shape == (6, 9)
    ids = [[2, 1, 2], [2, 1, 1], [1, 1, 2], [1, 1, 1], [3, 1, 2], [0, 1, 1]]  # row 6's kind is missing: '?'
    want = np.zeros((6, 9), np.float32)
    for r, (a, b, c) in enumerate(ids):
        want[r, [a, 4 + b, 6 + c]] = 1
    assert got.tolist() == want.tolist()
    assert prep.apply({"where": np.array([["purple", "z", "maybe"]], dtype=object)}, "new")["where"].tolist() == [
        [1, 0, 0, 0, 0, 1, 1, 0, 0]
    ]
    bad = json.loads(path.read_text())
    bad["feeds"]["where"]["vocabularies"].pop()
    path.write_text(json.dumps(bad))
    with pytest.raises(DataError, match="feeds.where.vocabularies: must hold one vocabulary per column"):
        Preprocessing.read(str(path))
