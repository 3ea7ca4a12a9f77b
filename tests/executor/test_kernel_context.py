"""The kernel context (pe_cli/kernels/context.py): what the executor tells a kernel beyond its op's
attributes reaches the kernels that name a ``ctx`` parameter, and only those; the attributes a
kernel gets are the op's own; a LoD a kernel computes comes back through the context."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.kernels import layout, run_checks
from pe_cli.kernels.context import NO_CONTEXT, KernelContext, takes_context
from pe_cli.ops import registry


def _program():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", shape=[2], dtype="float32", lod_level=1)
        noise = fluid.layers.uniform_random([4, 2], min=-1.0, max=1.0)
        fluid.layers.reverse(noise, axis=[0])
        fluid.layers.maxout(fluid.layers.reshape(noise, [1, 4, 2, 1]), groups=2)
        pooled = fluid.layers.sequence_pool(x, "sum")
        i = fluid.layers.fill_constant([1], "int64", 0)
        limit = fluid.layers.fill_constant([1], "int64", 3)
        cond = fluid.layers.less_than(i, limit)
        loop = fluid.layers.While(cond)
        with loop.block():
            fluid.layers.increment(i, in_place=True)
            fluid.layers.less_than(i, limit, cond=cond)
    return main, startup, noise, pooled, i


def test_a_step_hands_its_kernel_the_ops_attributes_alone():
    main, _, _, _, _ = _program()
    steps = [OpStep(op, CPUPlace()) for op in main.global_block().ops]
    for step in steps:
        assert step.attrs is step.op.attrs
        assert not any(k in step.attrs for k in ("_lod", "_rng", "_block", "_outputs", "_output_counts"))
    told = {s.op.type: s.told for s in steps}
    assert told["sequence_pool"] and told["uniform_random"] and told["while"]  # LoD, Generator, block
    # structured kernels' steps (maxout's too, since issue 95 converted it): their meta rules read the op's facts
    assert told["fill_constant"] and told["less_than"] and told["reverse"] and told["maxout"]
    by_type = {s.op.type: s.context for s in steps}
    assert by_type["uniform_random"].rng is not None and by_type["while"].block is not None
    assert by_type["sequence_pool"].rng is None and by_type["sequence_pool"].block is None


def test_the_ops_that_draw_count_or_run_a_block_have_kernels_that_take_the_context():
    """An op the executor hands a Generator, output counts or a block to has a kernel taking them, on
    each device it has one for: else what it is handed would be lost."""
    missing = []
    for t in registry.all_op_types():
        d = registry.get(t)
        if d.needs_rng or d.has("output_counts") or "sub_block" in d.attrs:
            if not takes_context(d.kernel("cpu")) and t != "unbind_leading_grad":  # (its grads are given)
                missing.append(t)
    assert missing == []


def test_wrappers_take_the_context_of_the_kernel_they_wrap():
    def told(ins, attrs, ctx):
        return {"Out": ctx}

    def untold(ins, attrs):
        return {"Out": None}

    for wrap in (
        lambda k: layout.channels_last(k, "cpu", ("X",)),
        lambda k: layout.along_axis(k, "cpu", ("X",)),
    ):
        assert takes_context(wrap(told)) and not takes_context(untold) and not takes_context(wrap(untold))
    ctx = KernelContext(lod={"X": [[0, 1]]})
    x = np.zeros((1, 2, 3, 3), np.float32)
    assert layout.channels_last(told, "cpu", ("X",))({"X": x}, {"data_format": "NCHW"}, ctx)["Out"] is ctx
    lstm = registry.get("lstm")  # run_lod: checked with its LoD, so the checks take the context too
    assert takes_context(run_checks.checked(untold, lstm))


def test_a_lod_the_kernel_computes_comes_back_through_the_context():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    ctx = KernelContext()
    out = registry.get("sequence_unpad").kernel("cpu")({"X": x.reshape(1, 5, 2), "Length": np.array([3])}, {}, ctx)
    assert set(out) == {"Out"} and [[int(v) for v in level] for level in ctx.out_lod["Out"]] == [[0, 3]]
    np.testing.assert_array_equal(out["Out"], x[:3])


def test_the_executor_carries_a_kernels_lod_to_the_outputs_variable():
    main, _, _, _, _ = _program()
    op = next(o for o in main.global_block().ops if o.type == "sequence_pool")
    step = OpStep(op, CPUPlace())
    name = op.input("X")[0]
    values = Values({name: np.ones((5, 2), np.float32)}, {name: [[0, 2, 5]]})
    run_step(step, values)
    np.testing.assert_array_equal(values[op.output("Out")[0]], [[2.0, 2.0], [3.0, 3.0]])
    with pytest.raises(Exception, match="has no LoD"):  # the same kernel, told no LoD
        run_step(step, Values({name: np.ones((5, 2), np.float32)}))


def test_the_untold_default_wants_every_output_and_writes_nothing_in_place():
    assert NO_CONTEXT.wanted(("A", "B")) == ("A", "B") and not NO_CONTEXT.inplace
    assert not NO_CONTEXT.update_in_place and NO_CONTEXT.count("Out", 4) == 4
    told = KernelContext(outputs=frozenset({"A"}), output_counts={"Out": 2})
    assert told.wanted(("A", "B")) == frozenset({"A"}) and told.count("Out", 4) == 2
