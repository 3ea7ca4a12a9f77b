"""The structure of the programs pe builds where Paddle's own unit tests check it op by op (issue 52,
docs/COMPAT.md "Upstream files, run unchanged"): written for pe, each asserting what Fluid 1.8.5 does."""

import numpy as np

import pe_cli.fluid as fluid
from pe_cli.fluid import initializer


def _startup_values(names_shapes, seed=7):
    """The startup program's values of parameters made in this order, with the program's seed."""
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = seed
    with fluid.program_guard(main, startup):
        for name, shape in names_shapes:
            fluid.layers.create_parameter(shape, "float32", name=name, default_initializer=initializer.Uniform())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        return startup, {n: np.array(scope.find_var(n).get_tensor()) for n, _ in names_shapes}


def test_initializer_ops_go_first_in_the_startup_program_with_their_seeds():
    program = fluid.Program()
    program.random_seed = 123
    block = program.global_block()
    block.create_parameter(dtype="float32", shape=[5, 10], name="p1", initializer=initializer.Uniform())
    block.create_parameter(dtype="float32", shape=[5, 10], name="p2", initializer=initializer.Uniform(seed=456))
    block.create_parameter(dtype="float16", shape=[2], name="h", initializer=initializer.Normal(seed=9))
    ops = block.ops
    assert [op.type for op in ops] == ["gaussian_random", "uniform_random", "uniform_random", "cast"]
    assert [op.attr("seed") for op in ops[:3]] == [9, 456, 123]
    assert ops[1].output("Out") == ["p2"] and ops[2].output("Out") == ["p1"]
    assert ops[3].output("Out") == ["h"] and ops[3].input("X") == ops[0].output("Out")


def test_a_parameter_made_later_leaves_the_seeded_values_of_earlier_ones_as_they_were():
    _, alone = _startup_values([("w1", [4, 3])])
    startup, both = _startup_values([("w1", [4, 3]), ("w2", [4, 3])])
    assert [op.output("Out")[0] for op in startup.global_block().ops] == ["w2", "w1"]
    np.testing.assert_array_equal(both["w1"], alone["w1"])
    assert not np.array_equal(both["w1"], both["w2"])  # one shape, one seed: still two draws
    _, again = _startup_values([("w1", [4, 3]), ("w2", [4, 3])])
    np.testing.assert_array_equal(again["w2"], both["w2"])
    np.testing.assert_array_equal(startup.clone().global_block().ops[0].seed_position, 1)


def _mul_mean(param_lr):
    program = fluid.Program()
    block = program.global_block()
    x = block.create_parameter(dtype="float32", shape=[5, 10], name="mul.x", optimize_attr={"learning_rate": param_lr})
    y = block.create_var(dtype="float32", shape=[10, 8], name="mul.y")
    out = block.create_var(dtype="float32", shape=[5, 8], name="mul.out")
    mean = block.create_var(dtype="float32", shape=[1], name="mean.out")
    block.append_op(type="mul", inputs={"X": x, "Y": y}, outputs={"Out": out}, attrs={"x_num_col_dims": 1})
    block.append_op(type="mean", inputs={"X": out}, outputs={"Out": mean})
    return program, x, mean


def test_minimize_returns_every_op_of_the_update_and_fluids_accumulators():
    program, x, mean = _mul_mean(1.1)
    startup = fluid.Program()
    opts, _ = fluid.optimizer.SGD(learning_rate=0.01).minimize(mean, startup)
    assert [op.type for op in opts] == ["scale", "sgd"]  # the parameter's learning rate, its update
    program, x, mean = _mul_mean(1.0)
    assert [op.type for op in fluid.optimizer.SGD(0.01).minimize(mean, fluid.Program())[0]] == ["sgd"]
    program, x, mean = _mul_mean(1.0)
    startup = fluid.Program()
    adamax = fluid.optimizer.Adamax(learning_rate=0.01)
    with fluid.program_guard(program, startup):
        opts, _ = adamax.minimize(mean)
    assert [op.type for op in opts] == ["adamax", "scale"]  # the closing update of beta1^t
    assert sorted(adamax._accumulators) == ["beta1_pow_acc", "inf_norm", "moment"]
    assert list(adamax._accumulators[adamax._moment_acc_str]) == ["mul.x"]
    init = startup.global_block().ops  # first in the startup program: the last made
    assert [op.type for op in init] == ["fill_constant"] * 4 and init[0].attr("value") == 0.01


def test_a_python_the_program_starts_imports_pe_as_paddle_and_nothing_else_does(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "starts_python.py"
    script.write_text(
        "import os, subprocess, sys\n"
        "out = subprocess.run([sys.executable, '-c', 'import paddle.fluid as f; print(f.Program.__module__)'],\n"
        "                     capture_output=True, text=True, check=True).stdout\n"
        "assert out.startswith('pe_cli.'), out\n"
        "assert os.system(sys.executable + ' -m paddle.fluid.reader') == 0\n"
    )
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": repo}
    done = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    outside = subprocess.run([sys.executable, "-c", "import paddle"], capture_output=True, text=True, env=env)
    assert outside.returncode != 0 and "No module named 'paddle'" in outside.stderr


def test_inference_optimize_sets_is_test_and_prunes_the_readers():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        reader = fluid.layers.py_reader(capacity=2, shapes=[[-1, 3]], dtypes=["float32"])
        x = fluid.layers.read_file(reader)
        fluid.layers.mean(fluid.layers.dropout(fluid.layers.fc(x, 2), 0.5))
    pruned, kept = main._inference_optimize(), main._inference_optimize(prune_read_op=False)
    assert [op.attr("is_test") for op in pruned.global_block().ops if op.type == "dropout"] == [True]
    assert not main.global_block().ops[-2].attr("is_test")  # the program itself is unchanged
    assert pruned._py_readers == [] and kept._py_readers == [reader]
    # Fluid's reader ops: the reader variable from the startup program, read ahead, read into x
    kept_types = [op.type for op in kept.global_block().ops]
    assert kept_types[:2] == ["create_double_buffer_reader", "read"] and kept.global_block().ops[1].output("Out") == [
        x.name
    ]
    assert [op.type for op in pruned.global_block().ops] == kept_types[2:]
    assert not any(v.type == "reader" for v in pruned.global_block().vars.values())
    assert [op.type for op in startup.global_block().ops][-1] == "create_py_reader"
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    loss = pruned.global_block().ops[-1].output("Out")[0]
    (out,) = exe.run(pruned, feed={x.name: np.ones((4, 3), "float32")}, fetch_list=[loss])  # fed, not read
    assert np.isfinite(out).all()
