"""A command imports what its config uses, not every part of the engine: ``pe summary`` and ``pe graph``
of a config, and ``pe --help``, import no numba (its import alone costs ~0.25 s of CPU per process), and
the first two no executor; a command on a model file of fully connected layers imports their layer
module, not the convolutions, the recurrent layers or detection (pe_cli/layers/layer_index.py), nor the
op families of fused ops its program does not have (the fusion passes read their names from
pe_cli/ops/fusion_patterns.py)."""

import os
import subprocess
import sys

import pytest

from tests.cli.test_helpers import REPO

# what sys.modules holds when the command exits: ``-X importtime`` misses the modules that
# importlib.import_module loads (the op families, the layer modules)
_LOADED = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: open('modules.txt', 'w').write('\\n'.join(sorted(sys.modules))))\n"
    "sys.argv = ['pe', *sys.argv[1:]]\n"
    "runpy.run_module('pe_cli', run_name='__main__', alter_sys=True)\n"
)

# layer modules and op families a model file of fc layers needs none of
_NOT_FC = (
    "pe_cli.layers.convolution",
    "pe_cli.layers.pooling",
    "pe_cli.layers.lstm",
    "pe_cli.layers.gru",
    "pe_cli.layers.rnn_api",
    "pe_cli.layers.dynamic_rnn",
    "pe_cli.layers.attention",
    "pe_cli.layers.detection_box",
    "pe_cli.layers.detection_nms",
    "pe_cli.layers.sequence",
    "pe_cli.ops.attention",
    "pe_cli.ops.fused",
    "pe_cli.ops.normalization",
    "pe_cli.ops.sequence_fused",
)


def _env():
    env = dict(os.environ, PYTHONPATH=REPO)
    env.pop("PE_DEBUG", None)
    return env


def _imported(args, tmp_path):
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pe_cli", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def _loaded(args, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, *args], capture_output=True, text=True, cwd=tmp_path, env=_env()
    )
    assert done.returncode == 0, done.stderr[-2000:]
    with open(os.path.join(tmp_path, "modules.txt"), encoding="utf-8") as f:
        return set(f.read().split())


@pytest.mark.parametrize(
    "args",
    [
        ["summary", os.path.join(REPO, "configs", "mnist_lenet.yaml")],
        ["graph", os.path.join(REPO, "configs", "mnist_lenet.yaml"), "-o", "graph.dot"],
        ["--help"],
    ],
    ids=["summary", "graph", "help"],
)
def test_a_command_that_runs_no_kernel_imports_no_numba(args, tmp_path):
    modules = _imported(args, tmp_path)
    assert "pe_cli.run" in modules or args == ["--help"]
    assert "numba" not in modules


@pytest.mark.parametrize(
    "args", [["summary", "LENET"], ["graph", "LENET", "-o", "graph.dot"]], ids=["summary", "graph"]
)
def test_a_command_that_runs_no_program_loads_no_executor(args, tmp_path):
    modules = _loaded(
        [os.path.join(REPO, "configs", "mnist_lenet.yaml") if a == "LENET" else a for a in args], tmp_path
    )
    assert "pe_cli.layers.convolution" in modules and "pe_cli.run.build" in modules
    assert [
        m for m in ("pe_cli.executor.executor", "pe_cli.executor.parallel", "pe_cli.run.evaluation") if m in modules
    ] == []


MLP = os.path.join(REPO, "configs", "mnist_mlp.yaml")
LIMITS = ["data.train.limit=64", "data.eval.limit=64"]


@pytest.mark.parametrize(
    "args",
    [["summary", MLP], ["train", MLP, *LIMITS, "--out", "run", "--max-steps", "1", "-q", "--threads", "1"]],
    ids=["summary", "train"],
)
def test_a_model_of_fc_layers_imports_no_other_layer_module(args, tmp_path):
    modules = _loaded(args, tmp_path)
    assert "pe_cli.layers.linalg" in modules  # fc's
    assert [m for m in _NOT_FC if m in modules] == []
