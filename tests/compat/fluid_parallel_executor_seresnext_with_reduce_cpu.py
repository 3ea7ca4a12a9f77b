# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_seresnext_with_reduce_cpu.py @ 113df1ff23ffb5b13a5bbb5cd728a28787d44118
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices, in its
# Fluid 1.x form (use_cuda for DeviceType): the small SE-ResNeXt of _seresnext_net.py (after
# seresnext_net.py) trained with Momentum + L2Decay on a cosine_decay learning rate gives, device by
# device, the same first losses (1e-5) and last losses (within 1e-3 of the loss) under AllReduce and
# Reduce. The enable_sequential_execution comparisons follow only on CUDA, as in Paddle.
import paddle.fluid.core as core
import _seresnext_net as seresnext_net
from _parallel_executor_base import assert_almost_equal, check_network_convergence


def run(use_cuda, use_reduce, **kwargs):
    return check_network_convergence(
        seresnext_net.model,
        feed_dict=seresnext_net.feed_dict(use_cuda),
        iter=seresnext_net.iter(use_cuda),
        batch_size=seresnext_net.batch_size(use_cuda),
        use_cuda=use_cuda,
        use_reduce=use_reduce,
        optimizer=seresnext_net.optimizer,
        **kwargs,
    )


def assert_same(losses_a, losses_b, delta2):
    (first_a, last_a), (first_b, last_b) = losses_a, losses_b
    for a, b in zip(first_a, first_b):
        assert_almost_equal(a, b, 1e-5, "first loss: ")
    for a, b in zip(last_a, last_b):
        assert_almost_equal(a, b, a * delta2, "last loss: ")


def compare_reduce_and_allreduce(use_cuda, delta2=1e-5):
    if use_cuda and not core.is_compiled_with_cuda():
        return
    all_reduce, reduce = run(use_cuda, False), run(use_cuda, True)
    assert_same(all_reduce, reduce, delta2)
    if not use_cuda:
        return
    all_reduce_seq = run(use_cuda, False, enable_sequential_execution=True)
    reduce_seq = run(use_cuda, True, enable_sequential_execution=True)
    assert_same(all_reduce, all_reduce_seq, delta2)
    assert_same(reduce, reduce_seq, delta2)
    assert_same(all_reduce_seq, reduce_seq, delta2)


compare_reduce_and_allreduce(use_cuda=False, delta2=1e-3)
print("ok")
