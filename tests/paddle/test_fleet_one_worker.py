"""paddle.distributed.fleet (Paddle 2.x) under pe fluid, one worker (issue 86, item 3): a static program
that calls fleet.init(is_collective=True) and minimizes through fleet.distributed_optimizer trains as
with its optimizer alone (worker 0 of 1, as Paddle 2.6 outside a launcher); a strategy switch pe's 2.x
fleet does not apply (amp, recompute, ...) is one line (so are several workers and the parameter-server mode,
checked in minimize; a launched run's rendezvous makes those slow to test here)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = """\
import sys
import numpy as np
import paddle
import paddle.distributed.fleet as fleet
from paddle.distributed.fleet.base.role_maker import PaddleCloudRoleMaker
paddle.enable_static()
paddle.seed(3)
fleet.init(is_collective=True)
x = paddle.static.data('x', [None, 4], 'float32')
loss = paddle.mean(paddle.static.nn.fc(x, 2))
strategy = fleet.DistributedStrategy()
strategy.fuse_all_reduce_ops = True
opt = paddle.optimizer.SGD(0.1)
if sys.argv[1] == 'fleet':
    opt = fleet.distributed_optimizer(opt, strategy)
opt.minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
xs = np.arange(8, dtype='float32').reshape(2, 4) / 8
print(fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker(),
      [float(exe.run(feed={'x': xs}, fetch_list=[loss])[0]) for _ in range(3)])
if sys.argv[1] == 'fleet':
    strategy.recompute = True
    fleet.distributed_optimizer(paddle.optimizer.SGD(0.1), strategy).minimize(loss)
"""


def _run(tmp_path, *args):
    (tmp_path / "prog.py").write_text(PROGRAM)
    return subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", "prog.py", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=300,
    )


def test_one_worker_trains_as_its_optimizer_alone_and_refuses_what_it_cannot_apply(tmp_path):
    plain, fleet = _run(tmp_path, "plain"), _run(tmp_path, "fleet")
    assert plain.returncode == 0, plain.stderr
    assert fleet.stdout == plain.stdout and fleet.stdout.startswith("0 1 True ["), (fleet.stdout, plain.stdout)
    lines = fleet.stderr.strip().splitlines()
    assert fleet.returncode == 1 and len(lines) == 1, fleet.stderr
    assert "DistributedStrategy.recompute is not built in pe's Paddle 2.x fleet yet" in lines[0], lines[0]
