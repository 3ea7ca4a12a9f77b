"""Loaders refuse what they cannot read (issue 88, item 3), through real `pe` processes: a fetch op
whose `col` is a FLOAT (main read its .i, 0, and ran), `paddle.load` of a directory holding nothing
(main returned {} and a script's set_state_dict kept random weights), a `.pdopt` holding a pickle
payload beside a good `.pdparams` (main skipped it without a word), a `preprocessing.json` with a
key twice (main kept the second, empty one and blamed the data later), and a lone surrogate (legal
JSON) in a vocabulary word or a class name (main ended an ONNX export in a UnicodeEncodeError)."""

import json
import os
import subprocess

import numpy as np
import pytest

from tests.cli.test_helpers import PE, REPO, pe
from tests.cli.test_saved_preprocessing import _copy, run  # noqa: F401  (run: the fixture)
from tests.io.test_fluid_model_files import _save, mlp_desc
from tests.io.test_hostile_pdparams import _Evil, _w


def _one_line(proc, *parts):
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for part in parts:
        assert part in proc.stderr, proc.stderr


def _script(folder, text):
    (folder / "s.py").write_text(text)
    env = dict(os.environ, HOME=str(folder), PYTHONPATH=REPO)
    env.pop("PE_DEBUG", None)
    return subprocess.run(
        PE + ["fluid", "s.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_a_fetch_col_that_is_not_an_int_is_refused(tmp_path):
    desc = mlp_desc()
    fetch = desc.blocks[0].ops[-1]
    col = next(a for a in fetch.attrs if a.name == "col")
    col.type, col.f = 1, 0.5  # FLOAT
    (tmp_path / "inf").mkdir()
    _save(tmp_path / "inf", desc)
    np.savez(tmp_path / "x.npz", x=np.ones((2, 4), np.float32))
    proc = pe("infer", tmp_path / "inf", "--data", tmp_path / "x.npz", "-o", tmp_path / "y.npz")
    _one_line(proc, "op 4 (fetch): attribute 'col' is of attribute type 1, not INT (0)")
    assert not (tmp_path / "y.npz").exists()


def test_paddle_load_of_a_directory_holding_nothing_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = _script(tmp_path, "import paddle\nstate = paddle.load('empty')\nprint(len(state))\n")
    _one_line(proc, "empty is a directory holding no model (__model__) and no saved variable file")
    proc = _script(tmp_path, "import paddle.fluid as fluid\nfluid.io.load_program_state('empty')\n")
    _one_line(proc, "checkpoint directory 'empty' holds no saved variable")


def test_a_pdopt_payload_beside_good_parameters_is_refused(tmp_path):
    (tmp_path / "m.pdparams").write_bytes(_w(np.ones((3, 2), "float32")))
    (tmp_path / "m.pdopt").write_bytes(_w(_Evil(os.system, "touch pwned")))
    proc = _script(
        tmp_path,
        """import paddle.fluid as fluid
x = fluid.layers.data('x', [3])
y = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(name='w'), bias_attr=False)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
fluid.load(fluid.default_main_program(), 'm', exe)
""",
    )
    _one_line(proc, "m.pdopt", "posix.system")
    assert not (tmp_path / "pwned").exists()


def test_a_preprocessing_key_given_twice_is_refused(run, tmp_path):  # noqa: F811
    copy = _copy(run, tmp_path, lambda d: None)
    path = copy / "preprocessing.json"
    text = path.read_text()
    path.write_text(text.rstrip()[:-1] + ', "feeds": {}}')  # a second, empty "feeds" last
    assert json.loads(path.read_text())["feeds"] == {}
    proc = pe(
        "predict", run / "run.yaml", "--checkpoint", copy, "--data", run / "t.csv", "-o", tmp_path / "p.csv", cwd=run
    )
    _one_line(proc, "preprocessing.json: the key 'feeds' appears twice in one object")


@pytest.mark.parametrize("feed, key", [("text", "vocabulary"), ("y", "classes")])
def test_a_lone_surrogate_is_refused_at_load_naming_the_key(run, tmp_path, feed, key):  # noqa: F811
    copy = _copy(run, tmp_path, lambda d: d["feeds"][feed][key].append("bad\ud800word"))
    assert "\\ud800" in (copy / "preprocessing.json").read_text()
    n = len(json.loads((copy / "preprocessing.json").read_text())["feeds"][feed][key]) - 1
    said = f"preprocessing.json: feeds.{feed}.{key}[{n}]: 'bad\\ud800word' holds a lone surrogate"
    proc = pe(
        "predict", run / "run.yaml", "--checkpoint", copy, "--data", run / "t.csv", "-o", tmp_path / "p.csv", cwd=run
    )
    _one_line(proc, said)
    proc = pe("export", run / "run.yaml", "-c", copy, "--onnx", tmp_path / "m.onnx", cwd=run)
    _one_line(proc, said)
    assert not (tmp_path / "m.onnx").exists()
