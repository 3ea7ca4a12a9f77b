"""paddle.jit in static mode under pe fluid (issue 86, item 4): ``paddle.jit.save(layer, path,
input_spec)`` writes Paddle's path.pdmodel / path.pdiparams from the trained values, which
``paddle.static.load_inference_model`` and ``pe infer`` run to the layer's outputs (and Paddle 2.6.2's
``paddle.jit.load`` and ``load_inference_model`` give the same numbers: checked by hand with the oracle
on this script's model); ``to_static`` changes nothing in static mode; ``jit.load`` is one line."""

import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = """\
import numpy as np
import paddle
from paddle.static import InputSpec
paddle.enable_static()


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.bn = paddle.nn.BatchNorm1D(3)

    @paddle.jit.to_static
    def forward(self, x):
        return paddle.nn.functional.relu(self.bn(self.fc(x)))


net = Net()
x = paddle.static.data('x', [None, 4], 'float32')
y = net(x)
loss = paddle.mean(y)
paddle.optimizer.SGD(0.5).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
xs = np.arange(8, dtype='float32').reshape(2, 4) / 7
for _ in range(3):
    exe.run(feed={'x': xs}, fetch_list=[loss])
test = paddle.static.default_main_program().clone(for_test=True)
want = exe.run(test, feed={'x': xs}, fetch_list=[y.name])[0]
paddle.jit.save(net, 'out/net', input_spec=[InputSpec([None, 4], 'float32', 'x')])
prog, feeds, fetches = paddle.static.load_inference_model('out/net', exe)
got = exe.run(prog, feed={feeds[0]: xs}, fetch_list=fetches)[0]
np.save('x.npy', xs)
np.save('want.npy', got)
print(feeds, np.abs(got - want).max() if got.shape == want.shape else 'shapes differ')
"""


def _run(tmp_path, *args):
    return subprocess.run(
        [sys.executable, "-m", "pe_cli", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=300,
    )


def test_jit_save_writes_a_model_that_loads_and_infers(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    proc = _run(tmp_path, "fluid", "prog.py")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["['x']", "0.0"], proc.stdout
    assert (tmp_path / "out" / "net.pdmodel").stat().st_size > 0 and (tmp_path / "out" / "net.pdiparams").exists()
    proc = _run(
        tmp_path,
        "infer",
        "out",
        "--model-filename",
        "net.pdmodel",
        "--params-filename",
        "net.pdiparams",
        "--data",
        "x.npy",
        "-o",
        "o.npz",
    )
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "o.npz")
    np.testing.assert_array_equal(got[list(got)[0]], np.load(tmp_path / "want.npy"))


def test_jit_load_and_a_layer_without_input_spec_are_one_line(tmp_path):
    for body, said in (
        ("paddle.jit.load('out/net')", "paddle.jit.load: it returns an eager TranslatedLayer"),
        ("paddle.jit.save(paddle.nn.Linear(2, 2), 'out/m')", "paddle.jit.save: pe needs input_spec"),
    ):
        (tmp_path / "prog.py").write_text(f"import paddle\npaddle.enable_static()\n{body}\n")
        proc = _run(tmp_path, "fluid", "prog.py")
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1 and said in lines[0], proc.stderr
