"""Paddle 2.6.2's random numbers on the CPU, bit for bit (tests/data/paddle_oracle/random.json, written by
tools/paddle_random_oracle.py on paddlepaddle==2.6.2): uniform_random, gaussian_random and
truncated_gaussian_random seeded by ``paddle.seed``, by their own ``seed`` (negative too) and by a
program's ``random_seed`` through the initializers, in float32 and float64, over two runs of a program;
paddle.nn's initializers and its layers' default ones; and a static training script, unchanged under
``pe fluid``, whose losses are Paddle's from the first step."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from pe_cli import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "paddle_random_oracle", os.path.join(ROOT, "tools", "paddle_random_oracle.py")
)
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)


@pytest.fixture(scope="module")
def recorded():
    with open(oracle.OUT, encoding="utf-8") as f:
        data = json.load(f)
    assert data["engine"] == "paddlepaddle 2.6.2"
    assert sorted(data["cases"]) == sorted(oracle.CASES), "rerun tools/paddle_random_oracle.py on Paddle 2.6.2"
    return data


@pytest.mark.parametrize("name", sorted(oracle.CASES))
def test_values_are_paddles_bit_for_bit(recorded, name):
    build, seed, program_seed = oracle.CASES[name]
    got = oracle.run(paddle, build, seed, program_seed)
    want = recorded["cases"][name]
    assert [(v["dtype"], v["shape"]) for v in got] == [(v["dtype"], v["shape"]) for v in want]
    for i, (g, w) in enumerate(zip(got, want)):
        expected = np.array(w["values"], dtype=w["dtype"])
        np.testing.assert_array_equal(np.array(g["values"], dtype=g["dtype"]), expected, err_msg=f"value {i}")


def test_two_programs_after_one_seed_draw_alike_and_the_engine_advances():
    """paddle.seed(n) restarts the default generator: the same weights for a program built after it
    again, other values for the next run of an unseeded op."""
    first = oracle.run(paddle, oracle._initializers, 21, 0, runs=0)
    again = oracle.run(paddle, oracle._initializers, 21, 0, runs=0)
    assert first == again
    runs = oracle.run(paddle, oracle._ops("uniform_random", "float32"), 21, 0, runs=2)
    assert runs[0]["values"] != runs[3]["values"]


def test_static_script_under_pe_fluid_gives_paddles_losses(recorded, tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", oracle.SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    losses = json.loads(done.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(losses, recorded["script_losses"], rtol=2e-6, atol=0)


def test_a_negative_seed_is_refused_as_paddle_refuses_it():
    with pytest.raises(ValueError, match=r"^paddle.seed: seed -1 must be in \[0, 2\*\*64\)"):
        paddle.seed(-1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_random_p_draws_paddles_values_bit_for_bit(dtype):
    """Paddle 2.6's primitive uniform_random_p with a seed of its own, in a Paddle 2.x program: the values Paddle
    2.6.2 gave through its prim2orig lowering (paddle.uniform; tests/data/paddle_oracle/ops26.json), bit for bit;
    a program without min is refused in one line."""
    from tests.ops.paddle26 import RECORDED, array

    rec = RECORDED[f"uniform_random_p_{dtype}"]
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        out = block.create_var(name="out", dtype=dtype)
        block.append_op("uniform_random_p", {}, {"Out": [out]}, dict(rec["attrs"]))
        with pytest.raises(Exception, match="attribute min is required"):
            attrs = {k: v for k, v in rec["attrs"].items() if k != "min"}
            block.append_op("uniform_random_p", {}, {"Out": [block.create_var(name="o2")]}, attrs)
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[out])[0]
    want = array(rec["outputs"]["Out"][0])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


# Paddle 2.6.2's bernoulli_p (shape [4, 6], p 0.3) after paddle.seed(5), run as its prim2orig lowering runs it
# (paddle.bernoulli of paddle.full): the same draws in float32 and float64
_BERNOULLI_P = [0] * 12 + [1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1]


@pytest.mark.parametrize("dtype", [5, 6])
def test_bernoulli_p_draws_paddles_values_after_paddle_seed(dtype):
    """Paddle 2.6's primitive bernoulli_p in a Paddle 2.x program: bernoulli's draws from Paddle's engine over a
    tensor filled with p, Paddle 2.6.2's values after paddle.seed(5) (recorded above)."""
    paddle.enable_static()
    paddle.seed(5)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        y = block.create_var(name="y", dtype="float32" if dtype == 5 else "float64")
        block.append_op("bernoulli_p", {}, {"Y": [y]}, {"shape": [4, 6], "dtype": dtype, "p": 0.3})
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[y])[0]
    assert got.dtype == ("float32" if dtype == 5 else "float64") and got.shape == (4, 6)
    assert got.astype(int).ravel().tolist() == _BERNOULLI_P
