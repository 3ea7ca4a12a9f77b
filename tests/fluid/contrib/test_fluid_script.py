"""A Fluid script that uses fluid.contrib the way model-zoo programs do (submodule imports, basic_lstm,
extend_with_decoupled_weight_decay, mixed_precision.decorate), run unchanged under `pe fluid`."""

import json

from tests.cli.test_helpers import pe

SCRIPT = """
import json
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.contrib.mixed_precision as mixed_precision
from paddle.fluid.contrib.layers import basic_lstm
from paddle.fluid.contrib.decoder.beam_search_decoder import BeamSearchDecoder, StateCell
from paddle.fluid.contrib.utils.hdfs_utils import HDFSClient
from paddle.fluid.contrib import extend_with_decoupled_weight_decay

AdamW = extend_with_decoupled_weight_decay(fluid.optimizer.Adam)
feed = {"x": np.random.RandomState(0).rand(2, 3, 4).astype("float32")}


def train(make_optimizer):
    main, start = fluid.Program(), fluid.Program()
    main.random_seed = start.random_seed = 1
    with fluid.program_guard(main, start), fluid.unique_name.guard():
        x = fluid.layers.data("x", [3, 4], dtype="float32")
        out, h, c = basic_lstm(x, None, None, 6, num_layers=2)
        loss = fluid.layers.mean(out)
        make_optimizer().minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(start)
        losses = [float(exe.run(main, feed=feed, fetch_list=[loss])[0]) for _ in range(6)]
    return losses, fluid.contrib.memory_usage(main, 2)


decorated, memory = train(lambda: mixed_precision.decorate(fluid.optimizer.Adam(learning_rate=0.01)))
plain, _ = train(lambda: fluid.optimizer.Adam(learning_rate=0.01))
decayed, _ = train(lambda: AdamW(weight_decay=0.01, learning_rate=0.01))
print(json.dumps({"decorated": decorated, "plain": plain, "decayed": decayed, "memory": list(memory)}))
"""


def test_a_fluid_script_uses_contrib_under_pe_fluid(tmp_path):
    """The script imports contrib's submodules as model-zoo programs do; Adam decorated by
    mixed_precision.decorate trains as the undecorated Adam does, bit for bit (pe computes in float32,
    where loss scaling changes nothing), AdamW (extend_with_decoupled_weight_decay) otherwise from its second step, both losses
    going down, and memory_usage gives its estimate in KB."""
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    r = pe("fluid", script, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["decorated"] == got["plain"]
    assert got["decorated"][-1] < got["decorated"][0] and got["decayed"][-1] < got["decayed"][0]
    assert got["decayed"][0] == got["plain"][0] and got["decayed"][1] != got["plain"][1]
    lower, upper, unit = got["memory"]
    assert unit == "KB" and 0 < lower < upper
