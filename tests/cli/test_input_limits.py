"""The real ``pe`` and a real Python process on inputs beyond pe's limits (pe_cli/base/limits.py):
a model directory whose blocks' parents form a cycle and a FIFO in a Dataset's file list hung for
ever, and now end in under 5 s; counts and values that cannot be meant are one line naming the key
or file, a non-zero exit and no traceback. The in-process cases are tests/io/test_model_limits.py and
tests/data/test_input_limits.py."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.cli.test_helpers import REPO, pe

ENV = {"PYTHONPATH": REPO}

_CYCLE = """
    from pe_cli.base.fluid_proto import messages
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        y = fluid.layers.fc(fluid.layers.data("x", [4]), 3)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    fluid.io.save_inference_model(d, ["x"], [y], exe, main_program=main)
    desc = messages()["ProgramDesc"]()
    desc.ParseFromString(open(d + "/__model__", "rb").read())
    desc.blocks.add(idx=1, parent_idx=2)
    desc.blocks.add(idx=2, parent_idx=1)
    op = desc.blocks[0].ops.add(type="conditional_block")
    op.attrs.add(name="sub_block", type=8, block_idx=1)
    op.inputs.add(parameter="Cond", arguments=["x"])
    op.inputs.add(parameter="Input", arguments=["x"])
    op = desc.blocks[1].ops.add(type="scale")
    op.inputs.add(parameter="X", arguments=["nowhere"])
    op.outputs.add(parameter="Out", arguments=["out"])
    open(d + "/__model__", "wb").write(desc.SerializeToString())
    start = time.monotonic()
    try:
        fluid.io.load_inference_model(d, exe)
    except Exception as e:
        print(f"{time.monotonic() - start:.2f}", type(e).__name__, e)
"""

_FIFO = """
    os.mkfifo(d + "/fifo")
    x = fluid.layers.data("x", [1], dtype="int64")
    loss = fluid.layers.mean(fluid.layers.cast(x, "float32"))
    ds = fluid.DatasetFactory().create_dataset("QueueDataset")
    ds.set_use_var([x])
    ds.set_filelist([d + "/fifo"])
    start = time.monotonic()
    try:
        fluid.Executor(fluid.CPUPlace()).train_from_dataset(fluid.default_main_program(), ds, fetch_list=[loss])
    except Exception as e:
        print(f"{time.monotonic() - start:.2f}", type(e).__name__, e)
"""


_DAMAGED = """
    from pe_cli.base.fluid_proto import messages
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        y = fluid.layers.scale(fluid.layers.fc(fluid.layers.data("x", [4]), 3), 2.0)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    fluid.io.save_inference_model(d + "/long", ["x"], [y], exe, main_program=main)
    fluid.io.save_inference_model(d + "/huge", ["x"], [y], exe, main_program=main)
    for name, change in [("long", lambda desc: setattr(next(o for o in desc.blocks[0].ops if o.type == "scale"),
                                                       "type", "q" * 300_000)),
                         ("huge", lambda desc: next(v for v in desc.blocks[0].vars if v.name == "fc_0.w_0")
                          .type.lod_tensor.tensor.dims.__setitem__(slice(None), [2 ** 32, 2 ** 32]))]:
        desc = messages()["ProgramDesc"]()
        desc.ParseFromString(open(d + f"/{name}/__model__", "rb").read())
        change(desc)
        open(d + f"/{name}/__model__", "wb").write(desc.SerializeToString())
    print("written")
"""


@pytest.fixture(scope="module")
def damaged_models(tmp_path_factory):
    """Saved models, one with an op type of 300,000 characters (its error was 600 KB on one line), one
    whose weight has dims [2^32, 2^32] (int64's product, 0, passed the size check: internal error)."""
    d = str(tmp_path_factory.mktemp("damaged"))
    assert _python(_DAMAGED, d) == "written"
    return d


@pytest.fixture(scope="module")
def cyclic_model(tmp_path_factory):
    """A saved model whose blocks 1 and 2 name each other as parent; the script times the load."""
    d = str(tmp_path_factory.mktemp("cycle"))
    return d, _python(_CYCLE, d)


def _python(body, d):
    """Runs ``body`` in a fresh Python with pe imported (the clock starts after the imports); a
    hang fails at the timeout instead of hanging the suite. Returns its stdout's last line."""
    script = "import os, time\nfrom pe_cli import fluid\nd = " + repr(d) + "\n" + textwrap.dedent(body)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=dict(os.environ, **ENV)
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip().splitlines()[-1]


def test_a_parent_cycle_in_a_model_ends_in_under_5_seconds(cyclic_model):
    seconds, kind, message = cyclic_model[1].split(" ", 2)
    assert float(seconds) < 5 and kind == "PeError"
    assert "block 1 names block 2 as its parent" in message


def test_a_fifo_in_a_datasets_file_list_ends_in_under_5_seconds(tmp_path):
    seconds, kind, message = _python(_FIFO, str(tmp_path)).split(" ", 2)
    assert float(seconds) < 5 and kind == "NotRegularFile"
    assert message.startswith(f"{tmp_path}/fifo is a FIFO, not a regular file")


MODEL = """feeds:
  x: {shape: [4], dtype: float32}
  y: {shape: [1], dtype: float32}
layers:
  - out: {type: fc, input: x, size: 1}
  - cost: {type: square_error_cost, input: out, label: y}
  - loss: {type: mean, x: cost}
loss: loss
"""
RUN = "model: model.yaml\ndata:\n  train: {format: npz, path: d.npz}\n  batch_size: 4\n"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    (d / "model.yaml").write_text(MODEL)
    (d / "run.yaml").write_text(RUN)
    np.savez(d / "d.npz", x=np.ones((8, 4), "float32"), y=np.ones((8, 1), "float32"))
    np.save(d / "text.npy", np.array(["a", "b"]))
    (d / "script.py").write_text("print('never runs')\n")
    return d


CASES = [
    (
        ["train", "run.yaml", "--np", "10000"],
        1,
        "the process count (--np, or pe launch's --trainers + --pservers) is 10,000, above pe's limit of",
    ),
    (["launch", "--trainers", "10000", "script.py"], 1, "is 10,000, above pe's limit of"),
    (["graph", "run.yaml", "--ssa", "--devices", "100000"], 1, "--devices is 100,000, above pe's limit of"),
    (["train", "run.yaml", "epochs=0"], 2, "epochs: must be >= 1, got 0"),
    (["train", "run.yaml", "--max-steps", str(10**23)], 2, "'--max-steps'"),
    (["infer", "CYCLE", "--data", "text.npy", "-o", "out.npz"], 1, "/__model__: block 1 names block 2"),
    (["infer", "/dev/null", "--data", "text.npy", "-o", "out.npz"], 1, "/dev/null is a device, not a regular file"),
    (["infer", "DAMAGED/long", "--data", "text.npy", "-o", "out.npz"], 1, "characters cut ...] qqq"),
    (
        ["infer", "DAMAGED/huge", "--data", "text.npy", "-o", "out.npz"],
        1,
        "variable 'fc_0.w_0': an array of dims [4294967296, 4294967296] needs 67,108,864.0 TiB of memory",
    ),
]


@pytest.mark.parametrize(
    "args, status, message",
    CASES,
    ids=[
        "np",
        "launch",
        "graph-devices",
        "epochs-0",
        "max-steps-1e23",
        "infer-cycle",
        "infer-device",
        "infer-long-message",
        "infer-dims-beyond-int64",
    ],
)
def test_a_value_beyond_the_limits_is_one_line_naming_it(workdir, cyclic_model, damaged_models, args, status, message):
    args = [cyclic_model[0] if a == "CYCLE" else a.replace("DAMAGED", damaged_models) for a in args]
    proc = pe(*args, cwd=workdir, timeout=120, env=ENV)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == status, proc.stderr
    assert message in lines[-1] and "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert len(lines) == 1 or lines[0].startswith("Usage:"), proc.stderr  # click's usage line for --max-steps
    assert len(proc.stderr) < 1500, proc.stderr[:1500]
    assert not (workdir / "out.npz").exists()
