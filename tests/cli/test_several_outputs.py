"""Several output features, each exact (issue 97, item 1): a model with two numeric outputs, two
category outputs, or numeric + category + binary outputs gets one head per output, and every number
pe prints and writes for it (the held-out lines of ``pe train`` and ``pe eval``, eval.json,
metrics.csv's last row, ``pe predict``'s CSV columns) equals a recomputation from its predictions and
the table's true labels: RMSE/MAE/R² in the output's units, accuracy, the confusion matrix with the
output's class names, each output's loss and the weighted total (``loss: {weight: w}``). What pe cannot
predict exactly is one line. Real ``pe`` processes on the bundled penguins table (its complete rows),
one trained run per mix."""

import csv
import json
import math
import re

import numpy as np
import pytest

from tests.cli.serving import ROWS, Server, get, post, same_row
from tests.cli.test_helpers import complete_penguins, pe

INPUTS = "input_features: [{name: measures, column: [bill_depth_mm, flipper_length_mm], kind: numeric}]\n"
MIXES = {
    "numeric+numeric": "[{column: body_mass_g, kind: numeric}, {column: bill_length_mm, kind: numeric}]",
    "category+category": "[{column: species, kind: category}, {column: island, kind: category, loss: {weight: 0.5}}]",
    "numeric+category+binary": (
        "[{column: body_mass_g, kind: numeric, loss: {weight: 2}}, {column: species, kind: category},"
        " {column: sex, kind: binary}]"
    ),
}
CONFIG = """\
model: m.yaml
epochs: 2
optimizer: {type: Adam, learning_rate: 0.05}
data:
  train: {format: csv, path: p.csv}
  split: {eval: 0.25}
"""


def _outputs(mix):
    """[(name, kind, weight)] of a mix's output features."""
    found = re.findall(r"\{column: (\w+), kind: (\w+)(?:, loss: \{weight: ([\d.]+)\})?\}", MIXES[mix])
    return [(name, kind, float(w) if w else 1.0) for name, kind, w in found]


@pytest.fixture(scope="module", params=list(MIXES))
def run(request, tmp_path_factory):
    """One trained run of a mix, and its predictions of the whole table as CSV."""
    mix = request.param
    tmp = tmp_path_factory.mktemp(re.sub(r"\W", "_", mix))
    rows = complete_penguins(tmp / "p.csv")
    (tmp / "m.yaml").write_text(INPUTS + f"output_features: {MIXES[mix]}\n")
    (tmp / "c.yaml").write_text(CONFIG)
    train = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp)
    assert train.returncode == 0, train.stderr
    predict = pe("predict", "c.yaml", "-c", "run", "--data", "p.csv", "-o", "pred.csv", "-q", cwd=tmp)
    assert predict.returncode == 0, predict.stderr
    with open(tmp / "pred.csv") as f:
        reader = csv.reader(f)
        header = next(reader)
        predicted = list(reader)
    split = json.loads((tmp / "run" / "split.json").read_text())
    return {
        "mix": mix,
        "dir": tmp,
        "rows": rows,
        "eval": split["eval_rows"],
        "train": train.stdout,
        "header": header,
        "pred": {name: [r[i] for r in predicted] for i, name in enumerate(header)},
        "eval.json": json.loads((tmp / "run" / "eval.json").read_text()),
        "prep": json.loads((tmp / "run" / "preprocessing.json").read_text())["feeds"],
    }


def _recomputed(run, name, kind, weight):
    """(eval.json's report, its held-out line, this output's loss) recomputed from pe predict's CSV
    and the table's labels of the eval rows."""
    rows, pred = [run["rows"][i] for i in run["eval"]], run["pred"]
    if kind == "numeric":
        y = np.array([float(r[name]) for r in rows])
        p = np.array([float(pred[name][i]) for i in run["eval"]])
        err = p - y
        r2 = 1 - np.sum(err**2) / np.sum((y - y.mean()) ** 2)
        report = {"rmse": math.sqrt(np.mean(err**2)), "mae": np.mean(np.abs(err)), "r2": r2}
        line = f"{name}: RMSE {report['rmse']:.4g}  MAE {report['mae']:.4g}  R² {r2:.3f} (in {name}'s units)"
        loss = np.mean((err / run["prep"][name]["divide"][0]) ** 2)  # the standardized squared error
        return report, line, loss
    classes = sorted({r[name] for r in run["rows"]})
    truth = np.array([classes.index(r[name]) for r in rows])
    chosen = np.array([classes.index(pred[name][i]) for i in run["eval"]])
    assert [int(pred[f"{name}_id"][i]) for i in run["eval"]] == chosen.tolist()
    prob = np.array([[float(pred[f"{name}_prob_{c}"][i]) for c in classes] for i in run["eval"]])
    assert (prob.argmax(axis=1) == chosen).all()
    confusion = np.zeros((len(classes), len(classes)), dtype=int)
    np.add.at(confusion, (truth, chosen), 1)
    accuracy = float(np.mean(truth == chosen))
    report = {"top1_accuracy": accuracy, "confusion_matrix": confusion.tolist(), "classes": classes}
    loss = -np.mean(np.log(prob[np.arange(len(truth)), truth]))
    return report, f"{name}: accuracy {100 * accuracy:.2f}%", loss


def test_each_output_is_scored_against_its_own_labels_in_its_own_units(run):
    reports = run["eval.json"]["prediction"]["outputs"]
    outputs = _outputs(run["mix"])
    assert list(reports) == [name for name, _, _ in outputs]
    for name, kind, weight in outputs:
        want, line, _ = _recomputed(run, name, kind, weight)
        got = reports[name]
        assert got["samples"] == len(run["eval"]) and got["output"].startswith(name + "_")
        for key, value in want.items():
            if isinstance(value, float):
                assert got[key] == pytest.approx(value, rel=1e-5, abs=1e-9), (name, key)
            else:
                assert got[key] == value, (name, key)
        assert f"held-out {line}" in run["train"], run["train"]


def test_the_predict_csv_has_each_outputs_columns_in_its_units_and_classes(run):
    header = []
    for name, kind, _ in _outputs(run["mix"]):
        if kind == "numeric":
            header.append(name)
            values = np.array([float(v) for v in run["pred"][name]])
            mean = np.mean([float(r[name]) for r in run["rows"]])
            assert abs(values.mean() - mean) < 0.5 * np.std([float(r[name]) for r in run["rows"]])  # in its units
        else:
            classes = sorted({r[name] for r in run["rows"]})
            header += [name, f"{name}_id"] + [f"{name}_prob_{c}" for c in classes]
            assert set(run["pred"][name]) <= set(classes)
            ids = [int(i) for i in run["pred"][f"{name}_id"]]
            assert [classes[i] for i in ids] == run["pred"][name]
    assert run["header"] == header
    assert all(len(column) == len(run["rows"]) for column in run["pred"].values())


def test_metrics_csv_has_each_outputs_loss_and_the_weighted_total(run):
    with open(run["dir"] / "run" / "metrics.csv") as f:
        last = [r for r in csv.DictReader(f) if r["phase"] == "eval"][-1]
    metrics = run["eval.json"]["metrics"]
    total = 0.0
    for name, kind, weight in _outputs(run["mix"]):
        report, _, loss = _recomputed(run, name, kind, weight)
        assert float(last[f"{name}_loss"]) == pytest.approx(loss, rel=1e-4)
        assert metrics[f"{name}_loss"] == pytest.approx(loss, rel=1e-4)
        if kind != "numeric":
            assert float(last[f"{name}_acc"]) == pytest.approx(report["top1_accuracy"], rel=1e-5)
        total += weight * float(last[f"{name}_loss"])
    assert float(last["loss"]) == pytest.approx(total, rel=1e-4)


@pytest.mark.parametrize("run", ["numeric+category+binary"], indirect=True)  # one mix is enough for it
def test_pe_eval_prints_a_line_per_output(run):
    proc = pe("eval", "c.yaml", "-c", "run", "-o", "e.json", cwd=run["dir"])
    assert proc.returncode == 0, proc.stderr
    for name, kind, weight in _outputs(run["mix"]):
        assert _recomputed(run, name, kind, weight)[1] in proc.stdout.splitlines(), proc.stdout
    assert json.loads((run["dir"] / "e.json").read_text())["prediction"] == run["eval.json"]["prediction"]


@pytest.mark.parametrize("run", [m for m in MIXES if m != "category+category"], indirect=True)  # a regression in each
def test_an_inference_dir_holds_every_output_and_pe_infer_unscales_each_regression(run):
    """pe export --inference-dir without --output: a fetch target per output; pe infer on the raw rows
    gives each regression in its units (two of them: preprocessing.json's target is a list) and each
    classifier's scores, whose softmax is pe predict's probabilities."""
    proc = pe("export", "c.yaml", "-c", "run", "--inference-dir", "inf", cwd=run["dir"])
    assert proc.returncode == 0, proc.stderr
    proc = pe("infer", "inf", "--data", "p.csv", "-o", "i.npz", cwd=run["dir"])
    assert proc.returncode == 0, proc.stderr
    got = dict(np.load(run["dir"] / "i.npz"))
    outputs = _outputs(run["mix"])
    assert len(got) == len(outputs), list(got)
    for name, kind, _ in outputs:
        (values,) = [v for k, v in got.items() if k.startswith(name + ("_pred." if kind == "numeric" else "_logits."))]
        if kind == "numeric":
            np.testing.assert_allclose(values[:, 0], [float(v) for v in run["pred"][name]], rtol=1e-5)
            continue
        classes = sorted({r[name] for r in run["rows"]})
        prob = np.exp(values - values.max(axis=1, keepdims=True))
        prob /= prob.sum(axis=1, keepdims=True)
        want = [[float(run["pred"][f"{name}_prob_{c}"][i]) for c in classes] for i in range(len(run["rows"]))]
        np.testing.assert_allclose(prob, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    "outputs, says",
    [
        ("[{column: species, kind: category, loss: {weight: 0}}]", "output_features[0].loss.weight"),
        ("[{column: species, kind: category, loss: {weight: two}}]", "not 'two'"),
        ("[{column: species, kind: category, loss: {weight: -1}}]", "a number above 0, not -1"),
        ("[{column: species, kind: category}, {column: island, kind: set}]", "output feature 'island': a set output"),
    ],
    ids=["zero", "word", "negative", "set"],
)
def test_what_cannot_be_an_output_exactly_is_one_line(tmp_path, outputs, says):
    complete_penguins(tmp_path / "p.csv")
    (tmp_path / "m.yaml").write_text(INPUTS + f"output_features: {outputs}\n")
    (tmp_path / "c.yaml").write_text(CONFIG)
    proc = pe("train", "c.yaml", "--out", "run", cwd=tmp_path)
    err = proc.stderr.strip()
    assert proc.returncode == 2 and len(err.splitlines()) == 1 and says in err and "m.yaml:2" in err, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("run", ["numeric+category+binary"], indirect=True)  # one mix is enough for it
def test_onnx_exports_each_output_in_its_own_units_and_classes(run):
    """pe export --output <one head>: onnxruntime on raw rows gives pe predict's columns of that output."""
    import onnxruntime as ort

    measures = np.array([[float(r["bill_depth_mm"]), float(r["flipper_length_mm"])] for r in run["rows"]], np.float32)
    for layer, name in (("body_mass_g_pred", "body_mass_g"), ("species_logits", "species")):
        proc = pe("export", "c.yaml", "-c", "run", "--onnx", f"{name}.onnx", "--output", layer, cwd=run["dir"])
        assert proc.returncode == 0, proc.stderr
        session = ort.InferenceSession(str(run["dir"] / f"{name}.onnx"), providers=["CPUExecutionProvider"])
        got = dict(zip([o.name for o in session.get_outputs()], session.run(None, {"measures": measures})))
        if name == "body_mass_g":
            assert f"the output in {name}'s units" in proc.stdout
            want = [float(v) for v in run["pred"][name]]
            np.testing.assert_allclose(got[next(iter(got))].reshape(-1), want, rtol=1e-5)
        else:
            assert [str(c) for c in got["class_name"].reshape(-1)] == run["pred"][name]
            classes = sorted({r[name] for r in run["rows"]})
            want = [[float(run["pred"][f"{name}_prob_{c}"][i]) for c in classes] for i in range(len(run["rows"]))]
            np.testing.assert_allclose(got["prob"], want, atol=1e-5)


@pytest.mark.parametrize("run", ["numeric+category+binary"], indirect=True)  # one mix is enough for it
def test_one_onnx_model_holds_every_output_as_pe_predict_writes_it(run):
    """pe export --onnx without --output: one ONNX model, each output's graph outputs named after it
    (a regression's values in its units, a classifier's <name>_prob/_class/_class_name); onnxruntime
    on raw rows gives every one of pe predict's columns."""
    import onnxruntime as ort

    proc = pe("export", "c.yaml", "-c", "run", "--onnx", "all.onnx", cwd=run["dir"])
    assert proc.returncode == 0, proc.stderr
    assert "the output in body_mass_g's units" in proc.stdout, proc.stdout
    assert "the class names (outputs species_class_name, sex_class_name)" in proc.stdout, proc.stdout
    session = ort.InferenceSession(str(run["dir"] / "all.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["measures"]
    measures = np.array([[float(r["bill_depth_mm"]), float(r["flipper_length_mm"])] for r in run["rows"]], np.float32)
    names = [o.name for o in session.get_outputs()]
    got = dict(zip(names, session.run(None, {"measures": measures})))
    assert not {"prob", "class", "class_name"} & set(names), names
    for name, kind, _ in _outputs(run["mix"]):
        if kind == "numeric":
            want = [float(v) for v in run["pred"][name]]
            np.testing.assert_allclose(got[name].reshape(-1), want, rtol=1e-5)
            continue
        classes = sorted({r[name] for r in run["rows"]})
        assert [str(c) for c in got[f"{name}_class_name"]] == run["pred"][name]
        assert got[f"{name}_class"].tolist() == [int(i) for i in run["pred"][f"{name}_id"]]
        want = [[float(run["pred"][f"{name}_prob_{c}"][i]) for c in classes] for i in range(len(run["rows"]))]
        np.testing.assert_allclose(got[f"{name}_prob"], want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("run", ["numeric+category+binary"], indirect=True)  # one mix is enough for it
def test_pe_serve_answers_every_outputs_columns_as_pe_predict_writes_them(run):
    """pe serve RUN without --output: each row's answer holds every output's columns, pe predict's
    CSV row; /metadata names each output, its task and classes."""
    with open(run["dir"] / "pred.csv", newline="") as f:
        written = list(csv.DictReader(f))[:ROWS]
    with Server(run["dir"] / "run", log=run["dir"] / "serve.log") as server:
        status, body = post(server.url, {"rows": run["rows"][:ROWS]})
        assert status == 200, body
        for served, row in zip(body["predictions"], written, strict=True):
            same_row(served, row)
        status, meta = get(server.url + "/metadata")
        assert status == 200 and server.stop() == 0
    outputs = json.loads(meta)["outputs"]
    assert [(o["layer"], o["task"], o["target"]) for o in outputs] == [
        ("body_mass_g_pred", "regression", "body_mass_g"),
        ("species_logits", "classification", "species"),
        ("sex_logits", "classification", "sex"),
    ]
    assert outputs[1]["classes"] == ["Adelie", "Chinstrap", "Gentoo"] and outputs[2]["classes"] == ["female", "male"]


HAND_WRITTEN = """\
feeds:
  measures: {shape: [2]}
  species: {shape: [1], dtype: int64}
  island: {shape: [1], dtype: int64}
layers:
  - h: {type: fc, input: measures, size: 8, act: relu}
  - out_a: {type: fc, input: h, size: auto}
  - out_b: {type: fc, input: h, size: auto}
  - la: {type: softmax_with_cross_entropy, logits: out_a, label: species}
  - lb: {type: softmax_with_cross_entropy, logits: out_b, label: island}
  - lc: {type: softmax_with_cross_entropy, logits: out_a, label: island}
  - total: {type: sums, input: [la, lb, lc]}
  - loss: {type: mean, x: total}
loss: loss
"""


def test_a_hand_written_model_whose_heads_pe_cannot_tell_apart_is_never_scored_wrong(tmp_path):
    """Two label feeds, 'island' compared with two layers: no prediction report, and pe predict
    without --output is one line naming the label and the layers."""
    complete_penguins(tmp_path / "p.csv")
    (tmp_path / "m.yaml").write_text(HAND_WRITTEN)
    prep = "  preprocessing:\n    measures: {kind: numeric, columns: [bill_depth_mm, flipper_length_mm]}\n"
    prep += "    species: {kind: label}\n    island: {kind: label}\n"
    (tmp_path / "c.yaml").write_text(CONFIG.replace("epochs: 2", "epochs: 1") + prep)
    proc = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "prediction" not in json.loads((tmp_path / "run" / "eval.json").read_text())
    proc = pe("predict", "c.yaml", "-c", "run", "--data", "p.csv", "-o", "pred.csv", cwd=tmp_path)
    err = proc.stderr.strip().splitlines()
    assert proc.returncode != 0 and not (tmp_path / "pred.csv").exists(), proc.stdout
    assert "cannot tell which layer predicts 'island': out_b and out_a both do" in err[-1], err
    assert "--output LAYER" in err[-1] and not any("Traceback" in line for line in err)


SHARED = """\
feeds:
  measures: {shape: [2]}
  body_mass_g: {shape: [1]}
  bill_length_mm: {shape: [1]}
layers:
  - h: {type: fc, input: measures, size: 8, act: relu}
  - pred: {type: fc, input: h, size: 1}
  - la: {type: square_error_cost, input: pred, label: body_mass_g}
  - lb: {type: square_error_cost, input: pred, label: bill_length_mm}
  - total: {type: sums, input: [la, lb]}
  - loss: {type: mean, x: total}
loss: loss
"""


def test_one_layer_predicting_two_numeric_targets_gives_each_in_its_own_units(tmp_path):
    """A hand-written model whose one layer two losses compare with two numeric labels: pe predict,
    pe eval and the ONNX model un-scale it by each label's own statistics (not the first one's); the
    inference dir, whose fetch target has one set of units, is one line and nothing is written."""
    import onnxruntime as ort

    rows = complete_penguins(tmp_path / "p.csv")
    (tmp_path / "m.yaml").write_text(SHARED)
    prep = "  preprocessing:\n    measures: {kind: numeric, columns: [bill_depth_mm, flipper_length_mm]}\n"
    prep += "    body_mass_g: {kind: numeric}\n    bill_length_mm: {kind: numeric}\n"
    (tmp_path / "c.yaml").write_text(CONFIG.replace("epochs: 2", "epochs: 1") + prep)
    assert pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path).returncode == 0
    proc = pe("predict", "c.yaml", "-c", "run", "--data", "p.csv", "-o", "pred.csv", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "pred.csv") as f:
        pred = list(csv.DictReader(f))
    stats = json.loads((tmp_path / "run" / "preprocessing.json").read_text())["feeds"]
    scaled = [
        (float(p["body_mass_g"]) - stats["body_mass_g"]["shift"][0]) / stats["body_mass_g"]["divide"][0] for p in pred
    ]
    want = [z * stats["bill_length_mm"]["divide"][0] + stats["bill_length_mm"]["shift"][0] for z in scaled]
    np.testing.assert_allclose([float(p["bill_length_mm"]) for p in pred], want, rtol=1e-4)
    proc = pe("eval", "c.yaml", "-c", "run", "-o", "e.json", cwd=tmp_path)
    report = json.loads((tmp_path / "e.json").read_text())["prediction"]["outputs"]["bill_length_mm"]
    split = json.loads((tmp_path / "run" / "split.json").read_text())["eval_rows"]
    err = [float(pred[i]["bill_length_mm"]) - float(rows[i]["bill_length_mm"]) for i in split]
    assert report["rmse"] == pytest.approx(math.sqrt(np.mean(np.square(err))), rel=1e-5)
    proc = pe("export", "c.yaml", "-c", "run", "--onnx", "m.onnx", "--inference-dir", "inf", cwd=tmp_path)
    err = proc.stderr.strip()
    assert proc.returncode == 1 and len(err.splitlines()) == 1 and "predicts body_mass_g and bill_length_mm" in err
    assert not (tmp_path / "m.onnx").exists() and not (tmp_path / "inf").exists()
    assert pe("export", "c.yaml", "-c", "run", "--onnx", "m.onnx", cwd=tmp_path).returncode == 0
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    measures = np.array([[float(r["bill_depth_mm"]), float(r["flipper_length_mm"])] for r in rows], np.float32)
    got = dict(zip([o.name for o in session.get_outputs()], session.run(None, {"measures": measures})))
    for name in ("body_mass_g", "bill_length_mm"):
        np.testing.assert_allclose(got[name][:, 0], [float(p[name]) for p in pred], rtol=1e-5)
