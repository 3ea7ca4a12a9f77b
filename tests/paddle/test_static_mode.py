"""Paddle 2.x static programs as their users write them (issue 86, item 1), each run by ``pe fluid`` in
a subprocess: ``paddle.disable_static()`` on the last line ends static mode after the static work ran,
and what would run eagerly after it is refused in one line; the eager-only calls (``Tensor.numpy()``,
``loss.backward()``, ``paddle.to_tensor`` in a program that never entered static mode) are one line
naming the call and what to use, never a traceback; ``paddle.io.DataLoader(dataset, feed_list=[x, y])``
over a Dataset of (x, y) tuples feeds the program. Paddle 2.6.2 runs the same scripts: the static
result printed before ``disable_static`` is its, and it refuses ``numpy()``/``backward()`` in static
mode too (AssertionError "only can be called by `paddle.Tensor` in dynamic graph mode")."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HEAD = """\
import numpy as np
import paddle
paddle.enable_static()
x = paddle.static.data('x', [None, 2], 'float32')
y = paddle.sum(x * 2)
exe = paddle.static.Executor(paddle.CPUPlace())
print(exe.run(feed={'x': np.ones((3, 2), 'float32')}, fetch_list=[y])[0])
"""


def _pe_fluid(tmp_path, text, name="prog.py"):
    script = tmp_path / name
    script.write_text(textwrap.dedent(text))
    return subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=120,
        cwd=tmp_path,
    )


def _one_line(proc):
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_disable_static_on_the_last_line_ends_the_program_cleanly(tmp_path):
    proc = _pe_fluid(tmp_path, HEAD + "paddle.disable_static()\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["12.0"]  # Paddle 2.6.2 prints 12.0 too


def test_an_eager_call_after_disable_static_is_one_line_naming_it(tmp_path):
    line = _one_line(_pe_fluid(tmp_path, HEAD + "paddle.disable_static()\nt = paddle.to_tensor([1.0, 2.0])\n"))
    assert line.startswith(
        "pe fluid: prog.py:9: not supported by pe: paddle.to_tensor: called in dygraph mode "
        "(after paddle.disable_static() at prog.py:8)"
    ), line
    line = _one_line(_pe_fluid(tmp_path, HEAD + "paddle.disable_static()\nlayer = paddle.nn.Linear(2, 3)\n"))
    assert "prog.py:9" in line and "Linear: called in dygraph mode" in line, line
    proc = _pe_fluid(
        tmp_path,
        HEAD + "paddle.disable_static()\npaddle.enable_static()\n"
        "print(exe.run(feed={'x': np.ones((1, 2), 'float32')}, fetch_list=[paddle.mean(x)])[0])\n",
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["12.0", "1.0"], proc.stderr


def test_eager_only_tensor_methods_are_one_line_saying_what_to_use(tmp_path):
    cases = {
        "print(y.numpy())": ("Tensor.numpy()", "fetch_list"),
        "y.backward()": ("Tensor.backward()", "minimize"),
        "print(y.tolist())": ("Tensor.tolist()", "fetch_list"),
        "y.gradient()": ("Tensor.gradient()", "@GRAD"),
        "y.clear_gradient()": ("Tensor.clear_gradient()", "exe.run"),
    }
    for call, (name, way) in cases.items():
        line = _one_line(_pe_fluid(tmp_path, HEAD + call + "\n"))
        assert line.startswith(f"pe fluid: prog.py:8: not supported by pe: {name}: a dygraph (eager) call"), line
        assert way in line, line


def test_to_tensor_in_a_program_that_never_entered_static_mode_is_one_line(tmp_path):
    line = _one_line(_pe_fluid(tmp_path, "import paddle\nt = paddle.to_tensor([1.0, 2.0])\nprint(t.numpy())\n"))
    assert line.startswith("pe fluid: prog.py:2: not supported by pe: paddle.to_tensor:"), line
    assert "never called paddle.enable_static()" in line
    proc = _pe_fluid(
        tmp_path,
        "import paddle\npaddle.enable_static()\nt = paddle.to_tensor([1.5, 2.0])\n"
        "exe = paddle.static.Executor(paddle.CPUPlace())\nprint(exe.run(fetch_list=[t])[0])\n",
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "[1.5 2. ]", proc.stderr  # as Paddle 2.6.2


DATALOADER = """\
import numpy as np
import paddle
from paddle.io import Dataset, DataLoader
paddle.enable_static()


class Pairs(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.full([4], i, 'float32'), np.array([i % 3], 'int64')

    def __len__(self):
        return self.n


x = paddle.static.data('x', [None, 4], 'float32')
y = paddle.static.data('y', [None, 1], 'int64')
s = paddle.sum(x) + paddle.sum(paddle.cast(y, 'float32'))
exe = paddle.static.Executor(paddle.CPUPlace())
for return_list in (False, True):
    loader = DataLoader(Pairs(10), feed_list=[x, y], batch_size=4, return_list=return_list)
    for data in loader():
        feed = data if not return_list else {'x': data[0], 'y': data[1]}
        print(len(data), float(exe.run(feed=feed, fetch_list=[s])[0]), end='; ')
    print()
paddle.disable_static()
"""


def test_dataloader_feeds_a_static_program_from_a_dataset_of_pairs(tmp_path):
    proc = _pe_fluid(tmp_path, DATALOADER)
    assert proc.returncode == 0, proc.stderr
    # Paddle 2.6.2: a list of one feed dict per place (return_list=False), else the two fields; the sums
    # of batches [0..3], [4..7], [8, 9]: 4 * 6 + (0+1+2+0), 4 * 22 + (1+2+0+1), 4 * 17 + (2+0)
    expected = "{} 27.0; {} 92.0; {} 70.0; "
    assert proc.stdout.splitlines() == [expected.format(1, 1, 1), expected.format(2, 2, 2)]


def test_a_dygraph_program_stops_at_its_first_eager_call_saying_so(tmp_path):
    """A Paddle 2.x program written for dygraph (no enable_static: Paddle's optimizer.lr docs' first
    example) runs until its first eager-only call, which says the program runs eagerly in Paddle."""
    line = _one_line(
        _pe_fluid(
            tmp_path,
            "import paddle\nlinear = paddle.nn.Linear(10, 10)\n"
            "loss = paddle.mean(linear(paddle.uniform([10, 10])))\nloss.backward()\n",
        )
    )
    assert line.startswith(
        "pe fluid: prog.py:4: not supported by pe: Tensor.backward(): a dygraph (eager) call "
        "(this program has not called paddle.enable_static(): Paddle 2.x runs it eagerly)"
    ), line


def test_in_dynamic_mode_reports_paddles_mode(tmp_path):
    """Paddle's docs example of enable_static/disable_static (vatsalchheda/FreeFuzz's copy of it): True
    by default (Paddle 2.x starts eager), False after enable_static, True after disable_static."""
    proc = _pe_fluid(
        tmp_path,
        "import paddle\nprint(paddle.in_dynamic_mode())\npaddle.enable_static()\n"
        "print(paddle.in_dynamic_mode())\npaddle.disable_static()\nprint(paddle.in_dynamic_mode())\n",
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["True", "False", "True"], proc.stderr


def test_paddle_framework_holds_the_places(tmp_path):
    """Paddle's paddle.static.data docs example (yuehaoshi/FreeFuzz's copy) makes its executor with
    paddle.framework.CPUPlace(), which Paddle 2.6's paddle.framework holds."""
    proc = _pe_fluid(
        tmp_path,
        "import numpy as np\nimport paddle\npaddle.enable_static()\n"
        "x = paddle.static.data(name='x', shape=[3, 2, 1])\nz = x + x\n"
        "exe = paddle.static.Executor(paddle.framework.CPUPlace())\n"
        "print(exe.run(feed={'x': np.ones([3, 2, 1], 'float32')}, fetch_list=[z.name])[0].sum())\n",
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["12.0"], proc.stderr
