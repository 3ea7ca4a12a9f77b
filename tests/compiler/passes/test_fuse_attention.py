"""The fuse_attention pass (pe_cli/compiler/passes/fuse_attention.py): which ops of an attention it
fuses, forward and backward (the transformer_encoder layer's chain, with and without a padding mask,
and Fluid 1.x's matmul with alpha), what it leaves alone (a dropout on the weights), and that training
with it gives the losses and parameters of training without it within float32 rounding (one device
through a CompiledProgram, and 2 devices data parallel)."""

import collections

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler.passes.fuse_attention import fuse_attention

BATCH, SEQ, D_MODEL, HEADS = 4, 6, 8, 2


def counts(program):
    return collections.Counter(op.type for op in program.global_block().ops)


def _encoder(length=False, attn_dropout=0.0, fluid_chain=False, train=True):
    """x [SEQ, D_MODEL] -> one post-norm encoder layer (or, ``fluid_chain``, Fluid 1.x's own attention:
    fc, reshape2, transpose2, matmul with alpha, softmax, matmul, transpose2, reshape2) -> the mean over
    the steps -> fc 3, softmax cross-entropy, momentum."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[SEQ, D_MODEL])
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        if fluid_chain:
            h = _fluid_attention(fluid, x)
        else:
            lengths = fluid.layers.data(name="length", shape=[1], dtype="int64") if length else None
            h = fluid.layers.transformer_encoder(
                x, 1, D_MODEL, HEADS, 16, dropout=0.0, attn_dropout=attn_dropout, length=lengths
            )
        logits = fluid.layers.fc(fluid.layers.reduce_mean(h, dim=1), 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        if train:
            fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
    return main, startup, loss


def _fluid_attention(fluid, x):
    def heads(name):
        h = fluid.layers.fc(x, D_MODEL, num_flatten_dims=2, name=name)
        return fluid.layers.transpose(fluid.layers.reshape(h, [0, 0, HEADS, D_MODEL // HEADS]), [0, 2, 1, 3])

    q, k, v = heads("q"), heads("k"), heads("v")
    w = fluid.layers.softmax(fluid.layers.matmul(q, k, transpose_y=True, alpha=(D_MODEL // HEADS) ** -0.5))
    out = fluid.layers.transpose(fluid.layers.matmul(w, v), [0, 2, 1, 3])
    return fluid.layers.reshape(out, [0, 0, D_MODEL])


def test_it_fuses_an_encoder_layers_attention_forward_and_backward():
    main, _, _ = _encoder()
    before = counts(main)
    fused, changes = fuse_attention(main)
    after = counts(fused)
    assert counts(main) == before  # the program given is unchanged
    assert after["scaled_dot_product_attention"] == 1 and after["scaled_dot_product_attention_grad"] == 1
    for gone in ("transpose2", "transpose2_grad", "matmul_v2", "matmul_grad", "softmax", "softmax_grad"):
        assert after[gone] == 0, gone
    assert after["scale"] == before["scale"] - 2  # the queries' scale and its gradient
    assert sum(after.values()) == sum(before.values()) - 14
    op = next(op for op in fused.global_block().ops if op.type == "scaled_dot_product_attention")
    assert op.attrs["alpha"] == 0.5 and not op.input("Mask")
    assert [fused.global_block().var(n).shape for n in op.input("Q")] == [(-1, SEQ, HEADS, D_MODEL // HEADS)]
    assert changes == [
        "8 ops -> scaled_dot_product_attention writing transpose_3.tmp_0",
        "8 ops -> scaled_dot_product_attention_grad writing reshape2_0.tmp_0@GRAD, "
        "reshape2_1.tmp_0@GRAD, reshape2_2.tmp_0@GRAD",
    ]


def test_the_padding_mask_and_fluids_matmul_with_alpha_fuse_a_dropout_does_not():
    fused, changes = fuse_attention(_encoder(length=True)[0])
    op = next(op for op in fused.global_block().ops if op.type == "scaled_dot_product_attention")
    assert (
        op.input("Mask")
        and counts(fused)["elementwise_add_grad"] == counts(_encoder(length=True)[0])["elementwise_add_grad"] - 1
        and len(changes) == 2
    )
    fused, changes = fuse_attention(_encoder(fluid_chain=True)[0])
    assert counts(fused)["scaled_dot_product_attention_grad"] == 1 and len(changes) == 2
    assert next(op for op in fused.global_block().ops if op.type == "scaled_dot_product_attention").attrs[
        "alpha"
    ] == pytest.approx(0.5)
    main = _encoder(attn_dropout=0.1)[0]
    assert fuse_attention(main) == (main, [])
    fused, changes = fuse_attention(_encoder(train=False)[0])  # no backward: the forward alone
    assert counts(fused)["scaled_dot_product_attention"] == 1 and len(changes) == 1


def _train(main, startup, loss, fuse, devices, length):
    rng = np.random.default_rng(0)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    strategy.fuse_attention = fuse
    compiled = fluid.CompiledProgram(main, build_strategy=strategy)
    if devices > 1:
        compiled = compiled.with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()] * devices)
    losses = []
    for _ in range(3):
        feed = {"x": rng.normal(size=(BATCH, SEQ, D_MODEL)).astype(np.float32), "label": rng.integers(0, 3, (BATCH, 1))}
        if length:
            feed["length"] = rng.integers(2, SEQ + 1, (BATCH, 1))
        losses.append(np.mean(exe.run(compiled, feed=feed, fetch_list=[loss], scope=scope)[0]))
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}
    return losses, params


@pytest.mark.parametrize("devices, length", [(1, False), (2, True)])
def test_training_is_unchanged_within_float32_rounding(devices, length):
    main, startup, loss = _encoder(length=length)
    losses, final = _train(main, startup, loss, False, devices, length)
    losses_fused, final_fused = _train(main, startup, loss, True, devices, length)
    np.testing.assert_allclose(losses_fused, losses, rtol=2e-6)
    for name in final:
        np.testing.assert_allclose(final_fused[name], final[name], rtol=1e-5, atol=1e-6, err_msg=name)
