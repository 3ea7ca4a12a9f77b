"""RecomputeOptimizer (training/recompute.py): the backward runs again the forward ops between
checkpoints whose values are not kept, into ``<name>.subprog_<k>`` variables, as Fluid 1.8 does;
the updates are those of the wrapped optimizer without checkpoints, and a dropout run again drops
the units its forward run dropped (both read one ``seed`` op's value)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

RNG = np.random.default_rng(3)
FEED = {"x": RNG.normal(size=(8, 5)), "y": RNG.normal(size=(8, 1))}


def _build(checkpoints, dropout=0.0):
    """x -> fc(6, tanh) -> [dropout] -> fc(4, relu) -> fc(1) -> squared error; SGD, recomputing
    between the named checkpoints when ``checkpoints`` is not None."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [-1, 5], "float64")
        y = fluid.data("y", [-1, 1], "float64")
        h1 = fluid.layers.fc(x, 6, act="tanh")
        if dropout:
            h1 = fluid.layers.dropout(h1, dropout, name="drop")
        h2 = fluid.layers.fc(h1, 4, act="relu")
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(h2, 1), y))
        opt = fluid.optimizer.SGD(0.1)
        if checkpoints is not None:
            opt = fluid.optimizer.RecomputeOptimizer(opt)
            opt._set_checkpoints([main.global_block().var(n) for n in checkpoints])
        opt.minimize(loss)
    return main, startup, loss


def _train(main, startup, loss, fetch=(), steps=3, place=None):
    exe, scope = fluid.Executor(place or fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    for _ in range(steps):
        out = exe.run(main, feed=FEED, fetch_list=[loss.name, *fetch], scope=scope)
    params = sorted(p.name for p in main.global_block().all_parameters())
    return out, {p: np.array(scope.find_var(p).get_tensor()) for p in params}


def test_the_segment_between_checkpoints_is_run_again_and_the_updates_are_unchanged():
    main, startup, loss = _build(["fc_0.tmp_2", "fc_1.tmp_2"])  # h1 and h2 (after their activations)
    ops = main.global_block().ops
    backward = [op.type for op in ops][[op.type for op in ops].index("fill_constant") + 1 :]
    # each layer's mul and bias add run again before its gradients; the checkpoints (the
    # activations' outputs) are kept, fc_2's values cross no segment's bound and are kept too
    assert (
        backward
        == [
            "mean_grad",
            "square_grad",
            "elementwise_sub_grad",
            "elementwise_add_grad",
            "mul_grad",
            "mul",
            "elementwise_add",
            "relu_grad",
            "elementwise_add_grad",
            "mul_grad",
            "mul",
            "elementwise_add",
            "tanh_grad",
            "elementwise_add_grad",
            "mul_grad",
        ]
        + ["sgd"] * 6
    )
    again = [op for op in ops if op.type == "elementwise_add_grad"][1:]
    assert [op.input("X") for op in again] == [["fc_1.tmp_0.subprog_0"], ["fc_0.tmp_0.subprog_1"]]
    assert [op.output("X@GRAD") for op in again] == [["fc_1.tmp_0@GRAD"], ["fc_0.tmp_0@GRAD"]]
    plain = _train(*_build(None))
    again = _train(main, startup, loss)
    assert again[0][0] == pytest.approx(plain[0][0], rel=1e-12)
    for name, value in plain[1].items():
        np.testing.assert_allclose(again[1][name], value, rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("place", [fluid.CPUPlace(), fluid.CUDAPlace(0)], ids=["cpu", "cuda"])
def test_a_recomputed_dropout_drops_the_same_units(place):
    main, startup, loss = _build(["fc_1.tmp_2"], dropout=0.5)
    types = [op.type for op in main.global_block().ops]
    assert types[types.index("dropout") - 1] == "seed" and types.count("dropout") == 2
    dropouts = [op for op in main.global_block().ops if op.type == "dropout"]
    assert dropouts[0].input("Seed") == dropouts[1].input("Seed")
    (_, mask, again), _ = _train(
        main, startup, loss, fetch=["drop.tmp_1", "drop.tmp_1.subprog_0"], steps=1, place=place
    )
    assert 0 < mask.sum() < mask.size
    np.testing.assert_array_equal(mask, again)


def test_no_checkpoints_or_adjacent_ones_recompute_nothing():
    plain_types = [op.type for op in _build(None)[0].global_block().ops]
    for checkpoints in ([], ["fc_0.tmp_1", "fc_0.tmp_2"]):  # tanh alone between them
        main = _build(checkpoints)[0]
        assert [op.type for op in main.global_block().ops] == plain_types
        assert not any(".subprog_" in n for n in main.global_block().vars)


def test_ops_running_a_block_refuse_recomputation():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [-1, 3], "float32")
        h = fluid.layers.fc(x, 3)
        out = fluid.layers.cond(fluid.layers.reduce_sum(h) > 0, lambda: h * 2.0, lambda: h * 3.0)
        loss = fluid.layers.mean(fluid.layers.fc(out, 1))
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        opt._set_checkpoints([h, loss])
        with pytest.raises(PeError, match="run a block of their own"):
            opt.minimize(loss)
