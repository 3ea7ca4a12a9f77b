"""A Fluid script that uses fluid.contrib the way model-zoo programs do (submodule imports, basic_lstm,
extend_with_decoupled_weight_decay, mixed_precision.decorate), run unchanged under `pe fluid`."""

import sys

from tests.cli.test_helpers import pe

SCRIPT = """
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.contrib.mixed_precision as mixed_precision
from paddle.fluid.contrib.layers import basic_lstm
from paddle.fluid.contrib.decoder.beam_search_decoder import BeamSearchDecoder, StateCell
from paddle.fluid.contrib.utils.hdfs_utils import HDFSClient
from paddle.fluid.contrib import extend_with_decoupled_weight_decay

fluid.default_main_program().random_seed = fluid.default_startup_program().random_seed = 1
x = fluid.layers.data("x", [3, 4], dtype="float32")
out, h, c = basic_lstm(x, None, None, 6, num_layers=2)
loss = fluid.layers.mean(out)
AdamW = extend_with_decoupled_weight_decay(fluid.optimizer.Adam)
mixed_precision.decorate(AdamW(weight_decay=0.01, learning_rate=0.01)).minimize(loss)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
feed = {"x": np.random.RandomState(0).rand(2, 3, 4).astype("float32")}
first = exe.run(feed=feed, fetch_list=[loss])[0]
for _ in range(5):
    last = exe.run(feed=feed, fetch_list=[loss])[0]
print("contrib ok", fluid.contrib.memory_usage(fluid.default_main_program(), 2)[2], float(last) < float(first))
"""


def test_a_fluid_script_uses_contrib_under_pe_fluid(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    r = pe("fluid", script, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "contrib ok KB True"
