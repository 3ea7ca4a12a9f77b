"""While over tensor arrays, cond and Switch (conditional_block), sub-blocks in the IR, and the
errors of loops and arrays."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import layers


def _run(main, startup, feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        return exe.run(main, feed=feed, fetch_list=fetch)


def while_program(n=5, write_cond=True):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [3], dtype="float32")
        i = layers.fill_constant([1], "int64", 0)
        limit = layers.fill_constant([1], "int64", n)
        acc = layers.fill_constant([1], "float32", 0.0)
        arr = layers.create_array("float32")
        c = layers.less_than(i, limit)
        loop = layers.While(c, max_iterations=50)
        with loop.block():
            layers.assign(acc + layers.reduce_sum(x), acc)
            layers.array_write(acc, i, arr)
            layers.increment(i)
            if write_cond:
                layers.less_than(i, limit, cond=c)
        length = layers.array_length(arr)
        third = layers.array_read(arr, layers.fill_constant([1], "int64", 2))
    return main, startup, dict(acc=acc, length=length, third=third, i=i, arr=arr)


def test_while_accumulates_into_parent_variables_and_an_array():
    main, startup, v = while_program()
    x = np.arange(6, dtype="float32").reshape(2, 3)
    acc, length, third, i = _run(main, startup, {"x": x}, [v["acc"], v["length"], v["third"], v["i"]])
    assert acc[0] == pytest.approx(5 * x.sum()) and third[0] == pytest.approx(3 * x.sum())
    assert length[0] == 5 and i[0] == 5


def test_sub_blocks_in_the_ir():
    main, _, _ = while_program()
    body = main.block(1)
    assert body.parent_idx == 0 and main.num_blocks == 2
    assert body.var("x") is main.global_block().var("x")  # resolved through the parent
    assert body.has_var_recursive("x") and not body.has_var("x")
    loop = next(op for op in main.global_block().ops if op.type == "while")
    assert loop.attr("sub_block") == 1 and "x" in loop.input("X")
    text = main.to_string()
    assert text.index("while(") < text.index("    block 1 (parent 0) {") < text.index("array_length(")
    clone = main.clone(for_test=True)
    assert clone.num_blocks == 2 and clone.block(1).parent_idx == 0
    assert [op.type for op in clone.block(1).ops] == [op.type for op in body.ops]
    p = fluid.Program()
    b = p.create_block()
    assert p.current_block() is b and b.parent_idx == 0
    p.rollback()
    assert p.current_block_idx == 0


def test_a_loop_that_never_ends_names_its_line():
    with pytest.raises(PeError, match="never writes the condition"):
        while_program(write_cond=False)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        i = layers.fill_constant([1], "int64", 0)
        c = layers.less_than(i, layers.fill_constant([1], "int64", 1))
        loop = layers.While(c, max_iterations=7)
        with loop.block():
            layers.less_than(i, layers.fill_constant([1], "int64", 1), cond=c)
    with pytest.raises(PeError, match=r"while loop built at test_control_flow_while.py:\d+ ran 7 iterations"):
        _run(main, startup, {}, [i])


def test_array_read_out_of_range_names_the_array_and_index():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.fill_constant([2], "float32", 1.0)
        arr = layers.array_write(x, layers.fill_constant([1], "int64", 0))
        out = layers.array_read(arr, layers.fill_constant([1], "int64", 3))
    with pytest.raises(PeError, match=f"index 3 is out of range of array '{arr.name}'"):
        _run(main, startup, {}, [out])


def test_cond_picks_a_branch():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a = layers.data("a", [1], dtype="float32", append_batch_size=False)
        b = layers.data("b", [1], dtype="float32", append_batch_size=False)
        out = layers.cond(layers.less_than(a, b), lambda: a * 2.0, lambda: b - a)
    for av, bv, want in ((1.0, 3.0, 2.0), (5.0, 3.0, -2.0)):
        (got,) = _run(main, startup, {"a": np.array([av], "float32"), "b": np.array([bv], "float32")}, [out])
        assert got[0] == pytest.approx(want)


def _piecewise(boundaries, values):
    """piecewise_decay written with Switch, as Fluid 1.8's learning_rate_scheduler does."""
    step = layers.create_global_var([1], 0.0, "float32", persistable=True, name="step")
    layers.increment(step, 1.0)
    lr = layers.create_global_var([1], 0.0, "float32", persistable=True, name="lr")
    with layers.Switch() as switch:
        for boundary, value in zip(boundaries, values):
            with switch.case(layers.less_than(step, layers.fill_constant([1], "float32", boundary))):
                layers.assign(layers.fill_constant([1], "float32", value), lr)
        with switch.default():
            layers.assign(layers.fill_constant([1], "float32", values[-1]), lr)
    return lr


def test_switch_piecewise_decay_matches_the_schedule():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lr = _piecewise([3.0, 6.0], [1.0, 0.5, 0.1])
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        got = [float(exe.run(main, fetch_list=[lr])[0][0]) for _ in range(8)]
    assert got == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1])


def test_case_and_switch_case_nest_branches():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [1], dtype="float32", append_batch_size=False)
        k = layers.data("k", [1], dtype="int64", append_batch_size=False)
        one, two = layers.fill_constant([1], "float32", 1.0), layers.fill_constant([1], "float32", 2.0)
        picked = layers.case(
            [(layers.less_than(x, one), lambda: x * 10.0), (layers.less_than(x, two), lambda: x * 100.0)],
            default=lambda: x * 0.0,
        )
        switched = layers.switch_case(k, {1: lambda: x + 1.0, 3: lambda: x + 3.0}, default=lambda: x - 1.0)
    assert main.num_blocks > 4 and any(b.parent_idx > 0 for b in main.blocks)  # nested blocks
    for xv, kv, want in ((0.5, 1, (5.0, 1.5)), (1.5, 3, (150.0, 4.5)), (2.5, 2, (0.0, 1.5))):
        got = _run(main, startup, {"x": np.array([xv], "float32"), "k": np.array([kv])}, [picked, switched])
        assert (float(got[0][0]), float(got[1][0])) == pytest.approx(want)


def test_a_switch_without_default_keeps_a_persistable_value_when_no_case_holds():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lr = layers.create_global_var([1], 7.0, "float32", persistable=True, name="lr")
        x = layers.data("x", [1], dtype="float32", append_batch_size=False)
        with layers.Switch() as switch:
            with switch.case(layers.less_than(x, layers.fill_constant([1], "float32", 0.0))):
                layers.assign(layers.fill_constant([1], "float32", 1.0), lr)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        got = [
            float(exe.run(main, feed={"x": np.array([v], "float32")}, fetch_list=[lr])[0][0]) for v in (1.0, -1.0, 1.0)
        ]
    assert got == [7.0, 1.0, 1.0]


def test_tensor_arrays_keep_each_items_lod_through_a_loop():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [2], dtype="float32", lod_level=1)
        i, n = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", 2)
        arr = layers.create_array("float32")
        c = layers.less_than(i, n)
        loop = layers.While(c)
        with loop.block():
            layers.array_write(x * 2.0, i, arr)
            layers.increment(i)
            layers.less_than(i, n, cond=c)
        last = layers.array_read(arr, layers.fill_constant([1], "int64", 1))
    exe = fluid.Executor(fluid.CPUPlace())
    xv = fluid.create_lod_tensor(np.arange(10, dtype="float32").reshape(5, 2), [[3, 2]], fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        (got,) = exe.run(main, feed={"x": xv}, fetch_list=[last], return_numpy=False)
    assert got.recursive_sequence_lengths() == [[3, 2]]
    np.testing.assert_array_equal(np.array(got), 2 * np.arange(10, dtype="float32").reshape(5, 2))


def test_a_loop_no_gradient_reads_keeps_none_of_its_iterations():
    """Without a while_grad reading its StepScopes, a While frees each iteration's values (a beam
    search's decoding kept all of them: 6.2 GB for 41 steps over 10,000 words); with one, the loop's
    gradient still has them."""
    import tracemalloc

    def program(grad):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            x = layers.data("x", [1000], dtype="float32", append_batch_size=False)
            x.stop_gradient = False
            i, limit = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", 40)
            acc = layers.fill_constant([1000], "float32", 0.0)
            c = layers.less_than(i, limit)
            loop = layers.While(c)
            with loop.block():
                big = layers.expand(layers.reshape(x, [1, 1000]), [250, 1])  # 1 MB an iteration
                layers.assign(acc + layers.reduce_mean(big, dim=0) * x, acc)
                layers.increment(i)
                layers.less_than(i, limit, cond=c)
            loss = layers.reduce_sum(acc)
            if grad:
                fluid.backward.append_backward(loss)
        return main, startup, loss

    x = np.full(1000, 0.5, np.float32)
    main, startup, loss = program(False)
    _run(main, startup, {"x": x}, [loss])
    tracemalloc.start()
    try:
        (out,) = _run(main, startup, {"x": x}, [loss])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out[0] == pytest.approx(40 * 0.25 * 1000)
    assert peak < 10e6, f"peak {peak / 1e6:.0f} MB"  # 40 MB were kept
    main, startup, loss = program(True)
    out, grad = _run(main, startup, {"x": x}, [loss, "x@GRAD"])
    assert out[0] == pytest.approx(40 * 0.25 * 1000) and grad == pytest.approx(np.full(1000, 40.0))
