# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_fuse_optimizer_pass.py @ 02c53c2deaa4a3752e53a80f278729600eaa084a
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices, in its
# Fluid 1.x form (use_cuda for DeviceType). Facts: fc_with_batchnorm on init_data's batch, and bow_net
# with a sparse embedding on a DataFeeder batch of fake_imdb_reader's 64 reviews, trained with Adam,
# SGD and Momentum, give the same first and last losses within 1e-6 with and without
# BuildStrategy.fuse_all_optimizer_ops; and fuse_all_optimizer_ops together with
# enable_sequential_execution, memory_optimize, enable_inplace and the experimental executor builds and
# runs (check_pass_conflict). The nets and readers are simple_nets.py's and fake_reader.py's (in
# _parallel_executor_base.py). CUDA branches run where CUDA is.
import os
from functools import partial

import paddle
import paddle.fluid as fluid
import paddle.fluid.core as core
from _parallel_executor_base import (
    assert_almost_equal,
    bow_net,
    check_network_convergence,
    check_pass_conflict,
    fake_imdb_reader,
    fc_with_batchnorm,
    init_data,
)

os.environ["CPU_NUM"] = str(4)


def compare_fused_optimizer_ops(
    model, use_cuda, feed_dict=None, get_data_from_feeder=None, optimizer=fluid.optimizer.Adam
):
    if use_cuda and not core.is_compiled_with_cuda():
        return
    (not_fuse_first, not_fuse_last), (fuse_first, fuse_last) = [
        check_network_convergence(
            model,
            feed_dict=feed_dict,
            get_data_from_feeder=get_data_from_feeder,
            use_cuda=use_cuda,
            fuse_all_optimizer_ops=fuse,
            optimizer=optimizer,
        )
        for fuse in (False, True)
    ]
    for a, b in zip(not_fuse_first, fuse_first):
        assert_almost_equal(a, b, 1e-6, "first loss, unfused vs fused optimizer: ")
    for a, b in zip(not_fuse_last, fuse_last):
        assert_almost_equal(a, b, 1e-6, "last loss, unfused vs fused optimizer: ")


def pass_conflict(model, use_cuda, feed_dict=None, get_data_from_feeder=None, optimizer=fluid.optimizer.Adam):
    if use_cuda and not core.is_compiled_with_cuda():
        return
    check_pass_conflict(
        model,
        feed_dict=feed_dict,
        get_data_from_feeder=get_data_from_feeder,
        use_cuda=use_cuda,
        fuse_all_optimizer_ops=True,
        optimizer=optimizer,
        enable_sequential_execution=True,
    )


def get_feed_dict():
    img, label = init_data()
    return {"image": img, "label": label}


OPTIMIZERS = {
    "Adam": lambda learning_rate=1e-4: fluid.optimizer.Adam(learning_rate=learning_rate),
    "SGD": lambda learning_rate=1e-3: fluid.optimizer.SGD(learning_rate=learning_rate),
    "Momentum": lambda learning_rate=1e-3: fluid.optimizer.Momentum(learning_rate=learning_rate, momentum=0.1),
}

# TestFuseAdamOps, TestFuseSGDOps, TestFuseMomentumOps
for optimizer in OPTIMIZERS.values():
    for use_cuda in (True, False):
        compare_fused_optimizer_ops(fc_with_batchnorm, use_cuda, feed_dict=get_feed_dict(), optimizer=optimizer)

# TestSpareFuseAdamOps, TestSpareFuseSGDOps, TestSpareFuseMomentumOps
word_dict_len = 5147
batch_size = 64
train_data = next(paddle.batch(fake_imdb_reader(word_dict_len, batch_size * 100), batch_size=batch_size)())


def get_data_from_feeder():
    feeder = fluid.DataFeeder(feed_list=["words", "label"], place=fluid.CPUPlace())
    return feeder.feed(train_data)


model = partial(bow_net, dict_dim=word_dict_len, is_sparse=True)
for optimizer in OPTIMIZERS.values():
    for use_cuda in (True, False):
        compare_fused_optimizer_ops(model, use_cuda, get_data_from_feeder=get_data_from_feeder, optimizer=optimizer)

# TestFuseAdamOpsPassConflict, TestFuseSGDOpsPassConflict, TestFuseMomentumOpsPassConflict
for optimizer in OPTIMIZERS.values():
    for use_cuda in (False, True):
        pass_conflict(fc_with_batchnorm, use_cuda, feed_dict=get_feed_dict(), optimizer=optimizer)
print("ok")
