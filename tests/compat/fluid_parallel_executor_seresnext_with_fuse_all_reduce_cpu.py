# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_seresnext_with_fuse_all_reduce_cpu.py @ 12f70db6ebab7dc56aa2d8f8167153ae5fffa9d8
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices (the stored
# file's merge-conflict markers resolved to the one meaning both sides share): with fused all-reduce
# groups of at most 3 gradients (core._set_fuse_parameter_group_size(3); memory size 131072 MB), the
# small SE-ResNeXt of _seresnext_net.py (after seresnext_net.py) trained with Momentum + L2Decay on a
# cosine_decay learning rate gives, device by device, the same first and last losses (1e-5) with
# BuildStrategy.fuse_all_reduce_ops as without.
from functools import partial

import paddle.fluid as fluid

fluid.core._set_fuse_parameter_group_size(3)
fluid.core._set_fuse_parameter_memory_size(131072)

import _seresnext_net as seresnext_net  # noqa: E402
from _parallel_executor_base import check_network_convergence  # noqa: E402

check_func = partial(check_network_convergence, optimizer=seresnext_net.optimizer, fuse_all_reduce_ops=True)
seresnext_net.compare_result_with_origin_model(check_func, use_cuda=False)
print("ok")
