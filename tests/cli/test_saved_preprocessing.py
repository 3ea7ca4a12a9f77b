"""Text tokenizing and the trust pe puts in a saved preprocessing.json (issue 77, item 10), through
real `pe` processes on a generated table: the default tokenizer splits punctuation off words; a
regex tokenizer that can backtrack catastrophically is refused, in a config and in an edited
preprocessing.json; a preprocessing.json with NaN statistics, a huge vocabulary, or that is a
device is refused by predict and export in one line naming the file and the key."""

import json
import os
import shutil
import time

import pytest

from tests.cli.test_helpers import pe

MODEL = """\
feeds:
  x:    {shape: [1]}
  text: {shape: [1], dtype: int64, lod_level: 1}
  y:    {shape: [1], dtype: int64}
layers:
  - e:      {type: embedding, input: text, size: [40, 4]}
  - p:      {type: sequence_pool, input: e, pool_type: average}
  - j:      {type: concat, input: [p, x], axis: 1}
  - logits: {type: fc, input: j, size: 2}
  - xent:   {type: softmax_with_cross_entropy, logits: logits, label: y}
  - loss:   {type: mean, x: xent}
loss: loss
"""

CONFIG = """\
model: m.yaml
epochs: 1
data:
  train: {format: csv, path: t.csv}
  batch_size: 4
  preprocessing:
    x: {kind: numeric}
    text: {kind: text, max_vocabulary: 40%s}
    y: {kind: label}
output: {curves: false}
"""

ROWS = [
    "What a match!",
    "match. Great match",
    "A dull match, really?",
    "Great, great!",
    "match match match.",
    "Really great; a match!",
    "dull",
    "what a (dull) game",
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("saved")
    (root / "m.yaml").write_text(MODEL)
    (root / "t.csv").write_text("x,text,y\n" + "".join(f'{i},"{t}",{"ab"[i % 2]}\n' for i, t in enumerate(ROWS)))
    (root / "run.yaml").write_text(CONFIG % "")
    proc = pe("train", root / "run.yaml", "--out", root / "run", "-q", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root


def _copy(run, tmp_path, edit):
    """A copy of the run whose preprocessing.json is ``edit``(its content), as a dict."""
    shutil.copytree(run / "run", tmp_path / "run")
    path = tmp_path / "run" / "preprocessing.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return tmp_path / "run"


def _refused(proc, *parts):
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for part in parts:
        assert part in proc.stderr, proc.stderr


def test_the_default_tokenizer_splits_punctuation_off_words(run):
    vocab = json.loads((run / "run" / "preprocessing.json").read_text())["feeds"]["text"]["vocabulary"]
    assert vocab[:3] == ["<pad>", "<unknown>", "match"] and {"!", ".", ",", "?", ";", "(", ")"} <= set(vocab)
    assert not any(w.startswith("match") and w != "match" for w in vocab)  # not 'match!', 'match.', 'match,'
    assert len(vocab) == 2 + 7 + 7  # 7 words, 7 marks (main: 2 + 20)


def test_a_backtracking_pattern_in_a_config_is_one_line(run, tmp_path):
    (tmp_path / "m.yaml").write_text(MODEL)
    shutil.copy(run / "t.csv", tmp_path / "t.csv")
    (tmp_path / "run.yaml").write_text(CONFIG % ", tokenizer: regex, pattern: '(a+)+$'")
    start = time.monotonic()
    proc = pe("train", tmp_path / "run.yaml", "--out", tmp_path / "run", cwd=tmp_path)
    _refused(proc, "run.yaml:8", "(a+)+$", "a repeat can be followed by a character it also matches")
    assert time.monotonic() - start < 60 and not (tmp_path / "run").exists()


def test_a_backtracking_pattern_in_preprocessing_json_is_refused(run, tmp_path):
    copy = _copy(run, tmp_path, lambda d: d["feeds"]["text"].update(tokenizer="regex", pattern="(a+)+$"))
    (tmp_path / "new.csv").write_text("x,text\n1," + "a" * 40 + "b\n")
    proc = pe(
        "predict",
        run / "run.yaml",
        "--checkpoint",
        copy,
        "--data",
        tmp_path / "new.csv",
        "-o",
        tmp_path / "p.csv",
        cwd=run,
        timeout=60,
    )
    _refused(proc, "preprocessing.json: feeds.text.pattern: '(a+)+$'")


def test_nan_statistics_are_refused_by_predict_and_export(run, tmp_path):
    copy = _copy(run, tmp_path, lambda d: d["feeds"]["x"].update(divide=[float("nan")]))
    assert "NaN" in (copy / "preprocessing.json").read_text()
    proc = pe(
        "predict", run / "run.yaml", "--checkpoint", copy, "--data", run / "t.csv", "-o", tmp_path / "p.csv", cwd=run
    )
    _refused(proc, "preprocessing.json: feeds.x.divide[0]: nan is not a finite number")
    proc = pe("export", run / "run.yaml", "-c", copy, "--onnx", tmp_path / "m.onnx", cwd=run)
    _refused(proc, "preprocessing.json: feeds.x.divide[0]: nan is not a finite number")
    assert not (tmp_path / "m.onnx").exists()


def test_a_preprocessing_json_that_is_a_device_is_refused(run, tmp_path):
    shutil.copytree(run / "run", tmp_path / "run")
    os.remove(tmp_path / "run" / "preprocessing.json")
    os.symlink("/dev/zero", tmp_path / "run" / "preprocessing.json")
    proc = pe(
        "predict",
        run / "run.yaml",
        "--checkpoint",
        tmp_path / "run",
        "--data",
        run / "t.csv",
        "-o",
        tmp_path / "p.csv",
        cwd=run,
        timeout=60,
    )
    _refused(proc, "preprocessing.json is a device, not a regular file")


def test_a_vocabulary_above_the_limit_is_refused(run, tmp_path):
    words = [f"w{i}" for i in range(2000)]
    copy = _copy(run, tmp_path, lambda d: d["feeds"]["text"]["vocabulary"].extend(words))
    proc = pe(
        "predict",
        run / "run.yaml",
        "--checkpoint",
        copy,
        "--data",
        run / "t.csv",
        "-o",
        tmp_path / "p.csv",
        cwd=run,
        env={"PE_MAX_VOCABULARY": "1000"},
    )
    _refused(
        proc, "preprocessing.json: feeds.text.vocabulary: 2,016 entries, above pe's limit of 1,000", "PE_MAX_VOCABULARY"
    )


def test_statistics_that_overflow_are_refused_before_they_are_saved(run, tmp_path):
    (tmp_path / "m.yaml").write_text(MODEL)
    (tmp_path / "t.csv").write_text("x,text,y\n1,a b,a\n1e300,c,b\n3,d,a\n")  # beyond float32: inf
    (tmp_path / "run.yaml").write_text(CONFIG % "")
    proc = pe("train", tmp_path / "run.yaml", "--out", tmp_path / "run", cwd=tmp_path)
    _refused(proc, "run.yaml:7", "data.preprocessing.x: t.csv: sample 1 holds 1e+300, beyond float32's range")
    assert not (tmp_path / "run").exists()


def test_a_class_list_the_model_outgrows_is_one_line(run, tmp_path):
    copy = _copy(run, tmp_path, lambda d: d["feeds"]["y"].update(classes=["a"]))
    proc = pe(
        "predict", run / "run.yaml", "--checkpoint", copy, "--data", run / "t.csv", "-o", tmp_path / "p.csv", cwd=run
    )
    _refused(proc, "logits.size: 2 outputs, but the data's 1: the label feed 'y' has 1 class ('xent' takes")
