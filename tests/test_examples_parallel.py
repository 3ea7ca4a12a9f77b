"""The data-parallel Fluid-style examples run as users would run them, on 2 CPU devices."""

import os
import subprocess
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_example(name, *args, cpu_num="2"):
    env = dict(os.environ, CPU_NUM=cpu_num, PYTHONPATH=ROOT)  # this checkout's pe_cli
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", name), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_train_and_test_executors_share_parameters():
    out = run_example("parallel_executor_train_test.py")
    assert out.startswith("devices: 2,")


def test_dict_and_list_feeds():
    out = run_example("parallel_feeds.py")
    assert "dict feed of 10 samples on 2 devices" in out and "list feed of [10, 9] samples" in out
    assert "ValueError" in out and "TypeError" in out and "drop_last" in out


def test_drop_local_exe_scopes():
    assert "after drop_local_exe_scopes()" in run_example("parallel_drop_scopes.py")


def test_compiled_program_with_data_parallel_places():
    out = run_example("parallel_compiled_program.py", cpu_num="1")  # places=[CPUPlace()] * 2 wins
    assert "test loss per device" in out


def test_strategies_give_the_same_model(tmp_path):
    out = run_example("parallel_strategies.py", "--graph", str(tmp_path / "ssa"))
    assert "AllReduce: loss per device" in out and "Reduce:    loss per device" in out
    assert (tmp_path / "ssa_multi_devices_graph").read_text().startswith("digraph")
