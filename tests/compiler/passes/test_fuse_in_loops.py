"""The fusion passes inside a loop's body (pe_cli/compiler/passes/rewrite.py: every block, not only
the global one): a decoder's attention step, tanh(W_e e + expand(W_d h)), in a While loop. The fused
program computes the unfused one's numbers to the bit; what another block reads, or a gradient
flows through, is left as it is."""

import collections

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler.passes.fuse_elewise_add_act import fuse_elewise_add_act
from pe_cli.compiler.passes.fuse_gemm_epilogue import fuse_gemm_epilogue

B, T, H = 4, 6, 16


def _decoder(read_sum_after=False):
    """(main, startup, fetched): three steps of additive attention over ``enc`` [B, T, H] with the
    state h [B, H]: h = sum over t of tanh(enc + expand(fc(h))). ``read_sum_after``: the loop writes
    the last sum into a variable of the global block, which an op after the loop reads."""
    main, startup = fluid.Program(), fluid.Program()
    layers = fluid.layers
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        enc = layers.data("enc", [T, H])
        h = layers.data("h", [H])
        last = layers.fill_constant_batch_size_like(enc, [-1, T, H], "float32", 0.0)
        i = layers.fill_constant([1], "int64", 0)
        n = layers.fill_constant([1], "int64", 3)
        cond = layers.less_than(i, n)
        loop = layers.While(cond)
        with loop.block():
            query = layers.unsqueeze(layers.fc(h, H, param_attr="att.w", bias_attr="att.b"), [1])
            total = layers.elementwise_add(enc, layers.expand(query, [1, T, 1]))
            mixed = layers.tanh(total)
            layers.assign(layers.reduce_sum(mixed, dim=1), h)
            if read_sum_after:
                layers.assign(total, last)
            layers.increment(i, in_place=True)
            layers.less_than(i, n, cond=cond)
        fetched = [h, layers.reduce_sum(last)]
    return main, startup, fetched


def _types(block):
    return collections.Counter(op.type for op in block.ops)


def _run(main, startup, fetched, strategy=None):
    rng = np.random.default_rng(3)
    feed = {"enc": rng.normal(size=(B, T, H)).astype("float32"), "h": rng.normal(size=(B, H)).astype("float32")}
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    for name in ("att.w", "att.b"):
        value = np.asarray(scope.find_var(name).get_tensor())
        scope.find_var(name).get_tensor().set(rng.normal(size=value.shape).astype("float32") * 0.3, fluid.CPUPlace())
    program = main if strategy is None else fluid.CompiledProgram(main, build_strategy=strategy)
    return exe.run(program, feed=feed, fetch_list=fetched, scope=scope)


def test_the_attention_step_in_a_loop_fuses_into_one_op():
    main, _, _ = _decoder()
    fused, changes = fuse_elewise_add_act(main)
    body, before = fused.blocks[1], _types(main.blocks[1])
    assert before["expand"] == 1 and before["tanh"] == 1
    after = _types(body)
    assert after["fused_elemwise_activation"] == 1 and after["expand"] == 0 and after["tanh"] == 0
    assert after["elementwise_add"] == before["elementwise_add"] - 1
    assert _types(main.blocks[1]) == before  # the program given is unchanged
    op = next(o for o in body.ops if o.type == "fused_elemwise_activation")
    expand = next(o for o in main.blocks[1].ops if o.type == "expand")
    # the query's [B, 1, H] is broadcast over the T steps; the sum, which only tanh read, is not kept
    assert op.input("Y") == expand.input("X") and op.output("IntermediateOut") == []
    assert op.attrs["save_intermediate_out"] is False
    assert (
        len(changes) == 2
        and changes[1].startswith("expand (")
        and changes[1].endswith(") -> the broadcast of fused_elemwise_activation")
    )


def test_the_fully_connected_layer_in_a_loop_fuses_with_its_bias():
    main, _, _ = _decoder()
    fused, changes = fuse_gemm_epilogue(main)
    assert _types(fused.blocks[1])["fused_gemm_epilogue"] == 1 and _types(fused.blocks[1])["mul"] == 0
    assert changes == ["mul (fc_0) + elementwise_add -> fused_gemm_epilogue writing fc_0.tmp_1"]


def test_a_sum_another_op_reads_is_kept_and_its_expand_too():
    main, _, _ = _decoder(read_sum_after=True)
    fused, _ = fuse_elewise_add_act(main)
    assert fused is main  # the sum has a second reader (the assign to the global block's variable)


@pytest.mark.parametrize("read_sum_after", [False, True])
def test_the_fused_loop_computes_the_unfused_numbers(read_sum_after):
    main, startup, fetched = _decoder(read_sum_after)
    strategy = fluid.BuildStrategy()
    strategy.fuse_elewise_add_act_ops = strategy.fuse_gemm_epilogue = True
    plain = _run(main, startup, fetched)
    fused = _run(main, startup, fetched, strategy)
    assert np.isfinite(plain[0]).all() and np.abs(plain[0]).max() > 0.5
    for a, b in zip(plain, fused):
        assert a.tobytes() == b.tobytes()


def test_values_the_gradient_block_reads_are_not_fused_away():
    """With a gradient through the loop, its gradient block reads the body's product (the bias add's X,
    which the add's gradient reads, as Fluid's): the gemm epilogue pass leaves the body as it is; the
    add + tanh fusion keeps what the gradient block reads (the add's inputs and tanh's output), and the
    gradients are the unfused ones."""
    main, startup, fetched = _decoder()
    with fluid.program_guard(main, startup):
        fluid.backward.append_backward(fluid.layers.mean(fetched[0]))
    assert _types(main.blocks[2])["elementwise_add_grad"] == 2  # the loop's gradient block
    assert fuse_gemm_epilogue(main) == (main, [])
    assert [c.split(" -> ")[0] for c in fuse_elewise_add_act(main)[1]] == ["elementwise_add (elementwise_add_0) + tanh"]
    strategy = fluid.BuildStrategy()
    strategy.fuse_elewise_add_act_ops = strategy.fuse_gemm_epilogue = True
    grads = ["att.w@GRAD", "att.b@GRAD"]
    plain, fused = _run(main, startup, grads), _run(main, startup, grads, strategy)
    assert np.abs(plain[0]).max() > 0
    for a, b in zip(plain, fused):
        assert a.tobytes() == b.tobytes()
