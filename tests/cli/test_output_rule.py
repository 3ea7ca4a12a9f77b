"""No command destroys its own input (issue 78): the one rule every writer follows
(pe_cli/base/output_rule.py). An output is never a file the same command reads (the config, the data
file, the model file, through any spelling), never an existing side file the user did not name, never
written through a symlink (the link is replaced, its target untouched), and `pe launch --log_dir` goes
nowhere `-o` may not. Each refusal is one line naming the path, what it is and a place that works;
the input is byte for byte as it was. Real `pe` processes on a tiny CSV regression."""

import os

import numpy as np
import pytest

from tests.cli.test_helpers import line_model, pe, snapshot

CONFIG = """\
model: line.yaml
data:
  train: {format: csv, path: points.csv, columns: {x: [x0, x1, x2], y: y}, stop: 40}
  eval: {format: csv, path: points.csv, columns: {x: [x0, x1, x2], y: y}, start: 40}
  batch_size: 20
  preprocessing:
    x: {kind: numeric, scaling: standardize}
optimizer: {type: SGD, learning_rate: 0.1}
epochs: 1
output: {curves: false}
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """g/pre.yaml (its model g/line.yaml, data g/points.csv) trained 2 steps into run/; its
    inference directory inf/; rows.csv (the data without y) and x.npz (the inference feed)."""
    root = tmp_path_factory.mktemp("output-rule")
    g = root / "g"
    g.mkdir()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 3))
    np.savetxt(g / "points.csv", np.column_stack([x, x.sum(1)]), delimiter=",", header="x0,x1,x2,y", comments="")
    np.savetxt(root / "rows.csv", x[:5], delimiter=",", header="x0,x1,x2", comments="")
    np.savez(root / "x.npz", x=x[:5].astype(np.float32))
    (g / "line.yaml").write_text(line_model(3))
    (g / "pre.yaml").write_text(CONFIG)
    proc = pe("train", g / "pre.yaml", "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    proc = pe("export", g / "pre.yaml", "-c", root / "run", "--inference-dir", root / "inf")
    assert proc.returncode == 0, proc.stderr
    return root


def _refused(root, args, said, unchanged):
    """``pe ARGS`` exits 1 with one line holding ``said`` and a place that works; ``unchanged`` (files
    and folders) are byte for byte as they were."""
    before = {str(p): snapshot(p) if p.is_dir() else p.read_bytes() for p in unchanged}
    proc = pe(*args, cwd=root)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stdout + proc.stderr
    assert said in lines[0] and ("e.g. " in lines[0] or "give another" in lines[0]), lines[0]
    assert {str(p): snapshot(p) if p.is_dir() else p.read_bytes() for p in unchanged} == before
    return lines[0]


def test_export_onto_the_config_it_read_is_refused(root):
    line = _refused(
        root,
        ["export", "g/pre.yaml", "-c", "run", "--onnx", "g/pre.yaml"],
        "pe export --onnx g/pre.yaml: that is the config this command reads; write elsewhere, e.g. g/model.onnx",
        [root / "g"],
    )
    assert line.startswith("pe: error: ")


def test_export_onto_the_model_file_the_config_names_is_refused(root):
    """The model file is not on the command line: it is refused as a file the command read."""
    _refused(
        root,
        ["export", "g/pre.yaml", "-c", "run", "--onnx", "g/line.yaml"],
        "pe export --onnx g/line.yaml: that is the model file this command reads; write elsewhere, e.g. g/model.onnx",
        [root / "g"],
    )


def test_predict_onto_its_data_is_refused_through_any_spelling(root):
    os.symlink("rows.csv", root / "link.csv")
    for out in ("rows.csv", "./g/../rows.csv", "link.csv"):
        _refused(
            root,
            ["predict", "g/pre.yaml", "--checkpoint", "run", "--data", "rows.csv", "-o", out, "-q"],
            f"pe predict -o {out}: that is the data file this command reads; write elsewhere, e.g. ",
            [root / "rows.csv", root / "g"],
        )
    assert os.readlink(root / "link.csv") == "rows.csv"


def test_infer_onto_its_data_or_its_model_is_refused(root):
    _refused(
        root,
        ["infer", "inf", "--data", "x.npz", "-o", "x.npz"],
        "pe infer -o x.npz: that is the data file this command reads; write elsewhere, e.g. values.npz",
        [root / "x.npz", root / "inf"],
    )
    (root / "inf" / "params.npz").write_bytes((root / "x.npz").read_bytes())  # a file named like an output
    _refused(
        root,
        ["infer", "inf", "--data", "inf/params.npz", "-o", "inf/params.npz"],
        "that is the data file this command reads",
        [root / "inf"],
    )


def test_an_existing_side_file_the_user_did_not_name_is_refused(root, tmp_path):
    """`--onnx out/x.onnx` writes out/x.preprocessing.json and .txt beside it: a user's file there is
    refused before anything is written; the same export again (the same bytes) is fine."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "x.preprocessing.json").write_text("my own notes\n")
    line = _refused(
        root,
        ["export", "g/pre.yaml", "-c", "run", "--onnx", out / "x.onnx"],
        f"pe export --onnx {out}/x.onnx: {out}/x.preprocessing.json is already there",
        [out],
    )
    assert line.endswith(f"give another name, e.g. {out}/x-2.onnx") and not (out / "x.onnx").exists()
    for _ in range(2):
        proc = pe("export", "g/pre.yaml", "-c", "run", "--onnx", out / "x-2.onnx", cwd=root)
        assert proc.returncode == 0, proc.stderr
    assert (out / "x-2.preprocessing.json").is_file() and (out / "x-2.preprocessing.txt").is_file()


def test_an_output_that_is_a_symlink_is_replaced_and_its_target_kept(root, tmp_path):
    """-o and --onnx onto a symlink: the link becomes the output, the file it pointed to is the user's."""
    for name in ("mine.npz", "mine.onnx"):
        (tmp_path / name).write_bytes(b"the user's file")
        os.symlink(tmp_path / name, tmp_path / ("link-" + name))
    proc = pe(
        "predict",
        "g/pre.yaml",
        "--checkpoint",
        "run",
        "--data",
        "rows.csv",
        "-o",
        tmp_path / "link-mine.npz",
        "-q",
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr
    with np.load(tmp_path / "link-mine.npz") as z:
        assert z["value"].shape == (5, 1)
    proc = pe("export", "g/pre.yaml", "-c", "run", "--onnx", tmp_path / "link-mine.onnx", cwd=root)
    assert proc.returncode == 0, proc.stderr
    for link in ["link-mine.npz", "link-mine.onnx"]:
        assert not os.path.islink(tmp_path / link) and (tmp_path / link).stat().st_size > 100
        assert (tmp_path / link[len("link-") :]).read_bytes() == b"the user's file"


def test_launch_log_dir_inside_a_checkpoint_is_refused_as_o_is(root):
    (root / "train.py").write_text("print('never run')\n")
    _refused(
        root,
        ["launch", "--log_dir", "run/ckpt/step-2/logs", "train.py"],
        "--log_dir run/ckpt/step-2/logs: that is inside checkpoint run/ckpt/step-2; write elsewhere, e.g. run/",
        [root / "run"],
    )


def test_launch_onto_a_symlinked_log_is_one_line(root, tmp_path):
    """The rank that finds its workerlog.0 a symlink says so in the guard's one line (no traceback)."""
    (tmp_path / "precious").write_text("keep\n")
    (root / "logs").mkdir()
    os.symlink(tmp_path / "precious", root / "logs" / "workerlog.0")
    (root / "train.py").write_text("print('never run')\n")
    proc = pe("launch", "--log_dir", "logs", "train.py", cwd=root)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "workerlog.0 is a symlink" in proc.stderr, proc.stderr
    assert (tmp_path / "precious").read_text() == "keep\n"


def test_export_and_graph_onto_the_data_file_of_the_config_are_refused(root):
    """Neither command reads the data, but the config names it: no output may replace it."""
    _refused(
        root,
        ["export", "g/pre.yaml", "-c", "run", "--onnx", "g/points.csv"],
        "pe export --onnx g/points.csv: that is the data file of the config this command reads",
        [root / "g"],
    )
    _refused(
        root,
        ["graph", "g/pre.yaml", "--text", "-o", "g/points.csv"],
        "pe graph -o g/points.csv: that is the data file of the config this command reads",
        [root / "g"],
    )


def test_a_log_that_is_a_symlink_is_refused(tmp_path):
    from pe_cli.base.errors import PeError
    from pe_cli.base.output_rule import open_append

    (tmp_path / "precious").write_text("keep\n")
    os.symlink(tmp_path / "precious", tmp_path / "workerlog.0")
    with pytest.raises(PeError, match="workerlog.0 is a symlink; pe appends its log to a file of its own"):
        open_append(str(tmp_path / "workerlog.0"))
    assert (tmp_path / "precious").read_text() == "keep\n"


def test_graph_and_eval_onto_their_config_are_refused(root):
    _refused(
        root,
        ["graph", "g/line.yaml", "-o", "g/line.yaml"],
        "pe graph -o g/line.yaml: that is the config or model file this command reads",
        [root / "g"],
    )
    _refused(
        root,
        ["eval", "g/pre.yaml", "-c", "run", "--out", "g/pre.yaml"],
        "pe eval --out g/pre.yaml: that is the config this command reads",
        [root / "g"],
    )
