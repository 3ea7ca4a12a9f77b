"""paddle.static.amp under pe fluid (issue 86, item 3): Paddle 2.6.2 on the CPU inserts no casts and
its decorated optimizer (levels O1 and O2, amp_init called) trains to the same losses, step by step, as
the undecorated one (checked on the wheel); pe's does the same. fp16_guard builds the ops inside
unchanged; the float16 casts and bfloat16 are one line each."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = """\
import sys
import numpy as np
import paddle
paddle.enable_static()
paddle.seed(5)
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data('x', [None, 8], 'float32')
    with paddle.static.amp.fp16_guard():
        h = paddle.static.nn.fc(x, 16, activation='relu')
    loss = paddle.mean(paddle.static.nn.fc(h, 1))
    opt = paddle.optimizer.SGD(0.1)
    if sys.argv[1] != 'none':
        lists = paddle.static.amp.CustomOpLists(custom_black_list=['relu'])
        opt = paddle.static.amp.decorate(opt, amp_lists=lists, level=sys.argv[1], init_loss_scaling=128.0)
    opt.minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
if sys.argv[1] == 'O2':
    opt.amp_init(paddle.CPUPlace())
xs = np.random.RandomState(0).rand(4, 8).astype('float32')
print([float(exe.run(main, feed={'x': xs}, fetch_list=[loss])[0]) for _ in range(3)])
"""


def _pe_fluid(tmp_path, text, *args):
    script = tmp_path / "prog.py"
    script.write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=300,
        cwd=tmp_path,
    )


def test_decorated_training_equals_float32_as_paddle_on_the_cpu(tmp_path):
    runs = {level: _pe_fluid(tmp_path, PROGRAM, level) for level in ("none", "O1", "O2")}
    for level, proc in runs.items():
        assert proc.returncode == 0, (level, proc.stderr[-2000:])
    losses = {level: proc.stdout.strip() for level, proc in runs.items()}
    assert losses["O1"] == losses["none"] == losses["O2"], losses
    assert len(set(eval(losses["none"]))) == 3  # it trains


def test_float16_casts_and_bfloat16_are_one_line(tmp_path):
    for call, name in (
        (
            "paddle.static.amp.cast_model_to_fp16(paddle.static.default_main_program())",
            "paddle.static.amp.cast_model_to_fp16: pe's kernels have no float16 compute",
        ),
        (
            "paddle.static.amp.decorate(paddle.optimizer.SGD(0.1), dtype='bfloat16')",
            "paddle.static.amp.decorate(dtype='bfloat16'): pe has no bfloat16 dtype",
        ),
    ):
        proc = _pe_fluid(tmp_path, f"import paddle\npaddle.enable_static()\n{call}\n")
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1 and name in lines[0], proc.stderr
