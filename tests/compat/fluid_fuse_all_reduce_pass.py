# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_fuse_all_reduce_pass.py @ 01253c2765a0fcd07485ffd0f3f3b9b6f0c5da71
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices. Facts:
# simple_fc_net and fc_with_batchnorm (with fuse_all_optimizer_ops, SGD + L2Decay), and bow_net with a
# sparse embedding fed through a DataFeeder of fake_imdb_reader's batch of 64 reviews, give the same
# first and last losses within 1e-6 with and without BuildStrategy.fuse_all_reduce_ops. The nets,
# init_data and fake_imdb_reader are simple_nets.py's and fake_reader.py's (in
# _parallel_executor_base.py). TestFuseAllReduceOpsAndOptiOps repeats TestFuseAllReduceOps's cases with
# the same settings, so they run once here. CUDA branches run where CUDA is.
import os
from functools import partial

import paddle
import paddle.fluid as fluid
import paddle.fluid.core as core
from _parallel_executor_base import (
    assert_almost_equal,
    bow_net,
    check_network_convergence,
    fake_imdb_reader,
    fc_with_batchnorm,
    init_data,
    simple_fc_net,
)

os.environ["CPU_NUM"] = str(4)


def compare_fuse_all_reduce_ops(
    model, use_cuda, init_feed_dict=None, get_data_from_feeder=None, optimizer=None, fuse_all_optimizer_ops=False
):
    if use_cuda and not core.is_compiled_with_cuda():
        return
    feed_dict_data = None
    if init_feed_dict is not None:
        img, label = init_feed_dict()
        feed_dict_data = {"image": img, "label": label}
    (not_fuse_first, not_fuse_last), (fuse_first, fuse_last) = [
        check_network_convergence(
            model,
            feed_dict=feed_dict_data,
            get_data_from_feeder=get_data_from_feeder,
            use_cuda=use_cuda,
            fuse_all_reduce_ops=fuse,
            fuse_all_optimizer_ops=fuse_all_optimizer_ops,
            optimizer=optimizer,
        )
        for fuse in (False, True)
    ]
    for a, b in zip(not_fuse_first, fuse_first):
        assert_almost_equal(a, b, 1e-6, "first loss, unfused vs fused all-reduce: ")
    for a, b in zip(not_fuse_last, fuse_last):
        assert_almost_equal(a, b, 1e-6, "last loss, unfused vs fused all-reduce: ")


def optimizer(learning_rate=1e-3):
    return fluid.optimizer.SGD(learning_rate=learning_rate, regularization=fluid.regularizer.L2Decay(1e-3))


# TestFuseAllReduceOps (and TestFuseAllReduceOpsAndOptiOps)
for model in (simple_fc_net, fc_with_batchnorm):
    for use_cuda in (True, False):
        compare_fuse_all_reduce_ops(
            model, use_cuda, init_feed_dict=init_data, optimizer=optimizer, fuse_all_optimizer_ops=True
        )

# TestFuseAllReduceOpsWithSparseGrad
word_dict_len = 5147
batch_size = 64
train_data = next(paddle.batch(fake_imdb_reader(word_dict_len, batch_size * 100), batch_size=batch_size)())


def get_data_from_feeder():
    feeder = fluid.DataFeeder(feed_list=["words", "label"], place=fluid.CPUPlace())
    return feeder.feed(train_data)


model = partial(bow_net, dict_dim=word_dict_len, is_sparse=True)
for use_cuda in (True, False):
    compare_fuse_all_reduce_ops(model, use_cuda, get_data_from_feeder=get_data_from_feeder, optimizer=optimizer)
print("ok")
