"""The fuse_embedding_seq_pool pass (pe_cli/compiler/passes/fuse_embedding_seq_pool.py): which ops it
fuses in a small sparse CTR model (forward and backward), what it leaves alone, and that training
with it gives the losses and parameters of training without it (1 and 2 devices, sparse and dense
gradients, lazy Adam)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.compiler.passes.fuse_embedding_seq_pool import fuse_embedding_seq_pool

from tests.compiler.passes.test_fuse import counts

SLOTS, VOCAB, DIM = 2, 30, 4


def ctr(is_sparse=True, train=True, padding_idx=None, pooltype="sum"):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        slots = [fluid.layers.data(f"s{i}", [1], dtype="int64", lod_level=1) for i in range(SLOTS)]
        label = fluid.layers.data("label", [1], dtype="int64")
        pooled = [
            fluid.layers.sequence_pool(
                fluid.layers.embedding(s, [VOCAB, DIM], is_sparse=is_sparse, padding_idx=padding_idx), pooltype
            )
            for s in slots
        ]
        logits = fluid.layers.fc(fluid.layers.concat(pooled, axis=1), 2)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        if train:
            fluid.optimizer.Adam(0.01, lazy_mode=is_sparse).minimize(loss)
    return main, startup, loss


def feed(seed):
    rng = np.random.default_rng(seed)
    out = {"label": rng.integers(0, 2, (6, 1)).astype("int64")}
    for i in range(SLOTS):
        lengths = [2, 0, 3, 1, 4, 2]  # an empty sequence too
        ids = rng.integers(0, VOCAB, (sum(lengths), 1)).astype("int64")
        ids[0] = ids[1]  # a repeated id: its rows summed in the sparse gradient
        out[f"s{i}"] = fluid.create_lod_tensor(ids, [lengths], fluid.CPUPlace())
    return out


def test_it_fuses_each_slot_forward_and_backward():
    main, _, _ = ctr()
    before = counts(main)
    fused, changes = fuse_embedding_seq_pool(main)
    after = counts(fused)
    assert counts(main) == before  # the program given is unchanged
    assert after["fused_embedding_seq_pool"] == SLOTS and after["fused_embedding_seq_pool_grad"] == SLOTS
    for gone in ("lookup_table", "sequence_pool", "sequence_pool_grad", "lookup_table_grad"):
        assert after[gone] == 0, gone
    assert sum(after.values()) == sum(before.values()) - 2 * SLOTS
    assert changes[0].startswith("lookup_table") and "-> fused_embedding_seq_pool writing" in changes[0]
    assert changes[1].startswith("sequence_pool_grad + lookup_table_grad -> fused_embedding_seq_pool_grad")
    grad = next(op for op in fused.global_block().ops if op.type == "fused_embedding_seq_pool_grad")
    assert grad.attrs["is_sparse"] is True


@pytest.mark.parametrize("build", [lambda: ctr(padding_idx=0), lambda: ctr(pooltype="average")])
def test_a_padding_id_or_another_pool_type_is_left_alone(build):
    main, _, _ = build()
    fused, changes = fuse_embedding_seq_pool(main)
    assert fused is main and changes == []


def train(devices, steps=3, **options):
    main, startup, loss = ctr(is_sparse=options.pop("is_sparse", True))
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    for name, value in options.items():
        setattr(strategy, name, value)
    program = (
        fluid.CompiledProgram(main, build_strategy=strategy)
        if devices == 1
        else fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * devices
        )
    )
    losses = [exe.run(program, feed=feed(k), fetch_list=[loss], scope=scope)[0] for k in range(steps)]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    return losses, params


@pytest.mark.parametrize("devices,is_sparse", [(1, True), (2, True), (1, False)])
def test_training_is_bitwise_unchanged(devices, is_sparse, fixed_threads):
    losses, params = train(devices, is_sparse=is_sparse)
    losses_fused, params_fused = train(
        devices, is_sparse=is_sparse, fuse_embedding_seq_pool=True, fuse_gemm_epilogue=True
    )
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in params:
        np.testing.assert_array_equal(params[name], params_fused[name], err_msg=name)


def test_fetching_the_embedded_rows_fused_away_says_so():
    main, startup, loss = ctr()
    emb = next(op for op in main.global_block().ops if op.type == "lookup_table").output("Out")[0]
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    strategy.fuse_embedding_seq_pool = True
    with pytest.raises(PeError, match="fuse_embedding_seq_pool"):
        exe.run(fluid.CompiledProgram(main, build_strategy=strategy), feed=feed(0), fetch_list=[emb], scope=scope)
