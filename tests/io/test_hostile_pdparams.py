"""Hostile Fluid checkpoint files (.pdparams, issue 11) given to ``fluid.load`` in a script run by
``pe fluid``, as tests/cli/test_hostile_inputs.py runs its corpus: a fresh directory, a 2 GiB memory
cap, a time limit; each must exit non-zero with one line naming the file, no traceback, nothing
run (a pickle that would call os.system leaves no file behind) and nothing left behind."""

import os
import pickle
import shutil
import subprocess

import numpy as np
import pytest

from tests.cli.test_helpers import PE, REPO
from tests.cli.test_hostile_inputs import TIME_LIMIT, _capped

SCRIPT = """import paddle.fluid as fluid
x = fluid.layers.data('x', [3])
y = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(name='w'), bias_attr=False)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
fluid.load(fluid.default_main_program(), 'm', exe)
"""


class _Evil:
    def __init__(self, call, arg):
        self.call, self.arg = call, arg

    def __reduce__(self):
        return (self.call, (self.arg,))


def _w(value, protocol=2):
    return pickle.dumps({"w": value}, protocol=protocol)


_GOOD = _w(np.ones((3, 2), "float32"))
CASES = [
    ("os-system", _w(_Evil(os.system, "touch pwned")), "posix.system"),
    ("os-system-protocol-5", _w(_Evil(os.system, "touch pwned"), 5), "posix.system"),
    ("eval", _w(_Evil(eval, "open('pwned', 'w')")), "builtins.eval is read only as Paddle's"),
    ("object-dtype", _w(np.array([None, 1], dtype=object)), "not a plain numeric dtype"),
    ("truncated", _GOOD[:60], "truncated"),
    ("garbage", b"\x00" * 64, "opcode 0x00"),
    ("huge-declared-bytes", b"\x80\x03}(X\x01\x00\x00\x00w\x8e" + (2**60).to_bytes(8, "little") + b"u.", "ends before"),
    ("shape-beyond-data", _GOOD.replace(b"K\x03K\x02\x86", b"J\x00\x00\x00\x40J\x00\x00\x00\x40\x86"), "needs"),
    ("a-million-marks", b"\x80\x02" + b"(" * 1_000_000 + b".", "does not hold one object"),
    ("wrong-shape", _w(np.ones((2, 2), "float32")), "the program expects [3, 2]"),
    ("missing-name", pickle.dumps({"v": np.ones((3, 2), "float32")}, protocol=2), "has no variable 'w'"),
]


@pytest.mark.parametrize("name, data, expect", CASES, ids=[c[0] for c in CASES])
def test_hostile_pdparams(tmp_path, name, data, expect):
    case = tmp_path / "case"
    case.mkdir()
    (case / "load.py").write_text(SCRIPT)
    (case / "m.pdparams").write_bytes(data)
    listing = sorted(os.listdir(case))
    env = dict(os.environ, HOME=str(tmp_path), PYTHONPATH=REPO)
    env.pop("PE_DEBUG", None)
    proc = subprocess.run(
        PE + ["fluid", "load.py"],
        cwd=case,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        env=env,
        preexec_fn=_capped,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1 and len(proc.stderr) < 1000, proc.stderr[:1000]
    assert "m.pdparams" in proc.stderr and expect in proc.stderr, proc.stderr
    assert sorted(os.listdir(case)) == listing, "something was run or left behind"
    shutil.rmtree(case)


def test_paddle_load_refusing_a_file_is_one_line_under_pe_fluid(tmp_path):
    """paddle.load's refusal (a ValueError, as Paddle's) is one of pe's errors: one line naming the script's
    line and the file, not the sentence and then a 15-line traceback."""
    (tmp_path / "load.py").write_text("import paddle\n\nstate = paddle.load('m.pdparams')\n")
    (tmp_path / "m.pdparams").write_bytes(_w(_Evil(os.system, "touch pwned")))
    env = dict(os.environ, HOME=str(tmp_path), PYTHONPATH=REPO)
    env.pop("PE_DEBUG", None)
    proc = subprocess.run(
        PE + ["fluid", "load.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("pe fluid: load.py:3: error: `paddle.load` can not parse the file:m.pdparams")
    assert proc.stderr.count("\n") == 1 and not (tmp_path / "pwned").exists()


def test_a_frame_longer_than_the_file_is_truncated():
    """Protocol 4's FRAME declares its length: one past the file's end is refused as Python's pickle
    refuses it ('pickle data was truncated'), not read as an empty dict (in-process, < 0.1 s)."""
    from pe_cli.io.pickle_data import Refused, parse_pickle

    good = pickle.dumps({"w": np.ones(2, "float32")}, protocol=4)
    assert list(parse_pickle(good)) == ["w"]
    with pytest.raises(Refused, match="truncated"):
        parse_pickle(b"\x80\x04\x95" + (2**60).to_bytes(8, "little") + b"}.")
