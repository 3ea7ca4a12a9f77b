"""Paddle 2.x's static face (pe_cli/paddle: enable_static, paddle.static, paddle.optimizer): seed 002's
ParallelExecutor example runs unchanged through `pe fluid` (on the CPU), and the faces map to pe's
objects."""

from paths import REPO
import os
import subprocess
import sys

import numpy as np
import pytest

from pe_cli import paddle

ROOT = REPO

# seed 002 (../shared/seeds/002_a9e56ac86d0be8c3.txt), paddle.static.ParallelExecutor's example, with
# use_cuda = False (no GPU here) and the fetched losses printed and checked at the end.
SEED_EXAMPLE = """
import paddle
import numpy
import os
use_cuda = False
paddle.enable_static()
place = paddle.CUDAPlace(0) if use_cuda else paddle.CPUPlace()
if not use_cuda:
    os.environ['CPU_NUM'] = str(2)
exe = paddle.static.Executor(place)
train_program = paddle.static.Program()
startup_program = paddle.static.Program()
with paddle.static.program_guard(train_program, startup_program):
    data = paddle.static.data(name='X', shape=[None, 1], dtype='float32')
    hidden = paddle.static.nn.fc(data, 10)
    loss = paddle.mean(hidden)
    test_program = paddle.static.default_main_program().clone(for_test=True)
    paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
exe.run(startup_program)
train_exe = paddle.static.ParallelExecutor(use_cuda=use_cuda,
                                           main_program=train_program,
                                           loss_name=loss.name)
test_exe = paddle.static.ParallelExecutor(use_cuda=use_cuda,
                                          main_program=test_program,
                                          share_vars_from=train_exe)
x = numpy.random.random(size=(10, 1)).astype('float32')
loss_data, = train_exe.run(feed={"X": x},
                           fetch_list=[loss.name])
loss_data, = test_exe.run(feed={"X": x},
                          fetch_list=[loss.name])
print(numpy.array(loss_data).shape, "ok")
"""


def test_the_seed_parallel_executor_example_runs_through_pe_fluid(tmp_path):
    script = tmp_path / "seed_parallel_executor.py"
    script.write_text(SEED_EXAMPLE)
    proc = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("(2,) ok")  # one loss per device (CPU_NUM=2), concatenated


def test_optimizers_take_2x_arguments():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
        loss = paddle.mean(paddle.static.nn.fc(x, 2, activation="relu"))
        paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.5, weight_decay=0.01).minimize(loss)
    types = [op.type for op in main.global_block().ops]
    assert types.count("momentum") == 2 and "relu" in types
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.global_scope()
    exe.run(startup)
    (out,) = exe.run(main, feed={"x": np.ones((4, 3), "float32")}, fetch_list=[loss], scope=scope)
    assert out.shape == (1,)
    with pytest.raises(TypeError, match="parameters= takes a list of parameters"):
        paddle.optimizer.Adam(parameters=[object()])


def test_static_data_takes_the_default_dtype_and_create_parameter_checks_types():
    """Paddle 2.6's test_data and test_create_parameter: ``paddle.static.data`` without a dtype is
    the default dtype; bad names, shapes, attrs and initializers are TypeErrors."""
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        assert paddle.static.data("a", [2, 3]).dtype == "float32"
        paddle.set_default_dtype("float64")
        try:
            assert paddle.static.data("b", [2, 3]).dtype == "float64"
        finally:
            paddle.set_default_dtype("float32")
        assert paddle.static.data("c", [2], "bool").dtype == "bool"
        for bad, message in (
            (lambda: paddle.static.data(1, [2]), r"paddle\.static\.data: name must be str, got int"),
            (lambda: paddle.static.data("d", 2), r"paddle\.static\.data: shape must be list\|tuple, got int"),
            (
                lambda: paddle.create_parameter(1, "float32"),
                r"create_parameter: shape must be list\|tuple\|ndarray, got int",
            ),
            (
                lambda: paddle.create_parameter([1.0, 2.0], "float32"),
                r"create_parameter: item of shape must be int\|uint8\|int8\|int16\|int32\|int64, got float",
            ),
            (
                lambda: paddle.create_parameter([1, 2], "float32", attr=np.arange(2)),
                r"create_parameter: attr must be NoneType\|ParamAttr, got ndarray",
            ),
            (
                lambda: paddle.create_parameter([1, 2], "float32", default_initializer=np.arange(2)),
                r"create_parameter: default_initializer must be NoneType\|Initializer, got ndarray",
            ),
        ):
            with pytest.raises(TypeError, match=message):
                bad()
        w = paddle.create_parameter([2, 3], "float32", default_initializer=paddle.nn.initializer.Constant(0.5))
        assert w.shape == (2, 3)
