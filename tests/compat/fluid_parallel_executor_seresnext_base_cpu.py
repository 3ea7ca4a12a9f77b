# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_seresnext_base_cpu.py @ 0339f5a6fccbe01f24f430d68ef07dd1c53f2701
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices: a small
# SE-ResNeXt (grouped convolutions, squeeze-excitation, no dropout or batch norm; sizes in
# _seresnext_net.py, after seresnext_net.py) trained with Momentum + L2Decay on a cosine_decay learning
# rate gives, through with_data_parallel on 4 devices, a mean first loss within 1e-5 and a mean last
# loss within 1e-3 of the single-device Executor's.
from functools import partial

import _seresnext_net as seresnext_net
from _parallel_executor_base import check_network_convergence

check_func = partial(check_network_convergence, optimizer=seresnext_net.optimizer, use_parallel_executor=False)
seresnext_net.compare_result_with_origin_model(check_func, use_cuda=False, compare_separately=False, delta2=1e-3)
print("ok")
