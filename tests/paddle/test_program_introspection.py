"""Paddle 2.6's helpers that look into a static program, on pe's programs: which names a sub-block
takes from and gives to its parents (``paddle.utils.get_inputs_outputs_in_block``), the
garbage-collection plan (``core._get_eager_deletion_vars``), ``Program._copy_data_info_from``, the
stop_gradient a Paddle 2.6 program gives an op's outputs when none of its inputs takes a gradient,
``paddle.static.nn.sequence_lod``, ``paddle.nn.clip._allow_pure_fp16_global_norm_clip`` and
``paddle.dataset.mnist.fetch``."""

import os

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.fluid import core
from pe_cli.framework import program_release


def _while_program():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        i = paddle.assign(np.array([1]))
        ten = paddle.assign(np.array([10]))

        def body(i):
            return [i + paddle.assign(np.array([1]))]

        paddle.static.nn.while_loop(lambda i: i < ten, body, [i])
    return main, i, ten


def test_inputs_outputs_of_a_while_block():
    main, i, ten = _while_program()
    inputs, outputs = paddle.utils.get_inputs_outputs_in_block(main.block(1))
    assert inputs == {i.name, ten.name}
    cond = main.global_block().ops[2].output_arg_names[0]  # the less_than before the loop
    assert outputs == {i.name, cond}
    with pytest.raises(AssertionError, match="sub-block"):
        paddle.utils.get_inputs_outputs_in_block(main.global_block())


def test_eager_deletion_plan_has_one_list_per_block_and_op():
    main, i, ten = _while_program()
    plan = core._get_eager_deletion_vars(main.desc, [])
    assert [len(ops) for ops in plan] == [len(b.ops) for b in main.blocks]
    body = main.block(1)
    freed = [name for names in plan[1] for name in names]
    assert set(freed) <= set(body.vars) and freed  # only the body's own temporaries
    assert i.name not in freed and ten.name not in freed
    skipped = core._get_eager_deletion_vars(main.desc, freed)
    assert not any(names for names in skipped[1])


def test_copy_data_info_marks_fed_variables_and_checks_the_source():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3])
        fluid.layers.fc(x, 2)
    clone = main.clone()
    clone.global_block().var("x").is_data = False
    clone._copy_data_info_from(main)
    assert clone.global_block().var("x").is_data
    with pytest.raises(ValueError, match="no variable named 'x' in block 0"):
        clone._copy_data_info_from(startup)
    with pytest.raises(
        TypeError,
        match=r"Function Program\._copy_param_info_from\(\) needs to pass in a source Program, but received <class",
    ):
        clone._copy_data_info_from(startup.global_block())


def test_outputs_of_ops_without_gradient_inputs_stop_gradient(paddle2):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        img = paddle.static.data("image", [-1, 8])
        hidden = paddle.static.nn.fc(img, 4, activation="relu")
        assert hidden.stop_gradient is False
        hidden.stop_gradient = True
        dropped = paddle.nn.functional.dropout(hidden, p=0.5)
        assert dropped.stop_gradient and (hidden * 2).stop_gradient
        assert paddle.static.nn.fc(hidden, 3).stop_gradient is False  # reads a parameter
    assert main.clone().global_block().var(dropped.name).stop_gradient


def test_outputs_keep_their_flag_in_fluid_programs():
    old = program_release.follow_paddle2(False)
    try:
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            x = fluid.data("x", [None, 3])
            assert fluid.layers.relu(x).stop_gradient is False
    finally:
        program_release.follow_paddle2(old)


def test_sequence_lod_module_names_the_layers():
    assert paddle.static.nn.sequence_lod.sequence_pool is fluid.layers.sequence_pool
    assert set(paddle.static.nn.sequence_lod.__all__) <= set(dir(paddle.static.nn.sequence_lod))


def test_pure_fp16_global_norm_clip_flag():
    from pe_cli.paddle.nn.clip import _allow_pure_fp16_global_norm_clip as allow

    assert allow() is False
    assert allow(True) is False and allow() is True
    assert allow(False) is True and allow() is False


def test_mnist_fetch_reads_what_is_offline(tmp_path, monkeypatch):
    """``fetch()`` downloads nothing: it reads both splits from Paddle's cache (a damaged file there is
    one error naming it), from pe's bundled MNIST where the cache is empty, and with neither it names
    the files, where to put them and where Paddle downloads them from."""
    import shutil

    from pe_cli.base.errors import PeError
    from pe_cli.paddle.dataset import mnist

    monkeypatch.setenv("PADDLE_DATA_HOME", str(tmp_path))
    assert paddle.dataset.mnist.fetch() is None
    cache = tmp_path / "mnist"
    cache.mkdir()
    for images, labels in (mnist.TRAIN, mnist.TEST):
        shutil.copy(os.path.join(mnist.BUNDLED, mnist.TEST[0]), cache / images)
        shutil.copy(os.path.join(mnist.BUNDLED, mnist.TEST[1]), cache / labels)
    assert paddle.dataset.mnist.fetch() is None
    assert sum(1 for _ in paddle.dataset.mnist.train()()) == 10000  # the cache's, not the bundled 8,000
    damaged = cache / mnist.TRAIN[0]
    damaged.write_bytes(damaged.read_bytes()[:5000])
    with pytest.raises(PeError, match=f"{mnist.TRAIN[0]}: cannot read"):
        paddle.dataset.mnist.fetch()
    shutil.rmtree(cache)
    monkeypatch.setattr(mnist, "BUNDLED", str(tmp_path / "none"))
    with pytest.raises(
        PeError, match=r"absent \(pe downloads nothing\): put the MNIST IDX files .*\(Paddle downloads them from"
    ):
        paddle.dataset.mnist.fetch()
