# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_regularizer.py @ 004ff33e4a0f732c3d2dbc61797184b8e03e83b7
# Re-written for pe (same API calls and facts, in their Fluid 1.8 form: fluid.regularizer's
# append_regularization_ops, fluid.layers.mean/square/reduce_sum; the dygraph case is left out: pe
# runs static graphs), run with `pe fluid`.
import contextlib
import random
from functools import partial

import numpy as np
import paddle.fluid as fluid
import paddle.fluid.core as core
import paddle.fluid.framework as framework
import paddle.fluid.regularizer as regularizer
from paddle.fluid.backward import append_backward


def decay_ops(reg):
    program = framework.Program()
    block = program.global_block()
    mul_x = block.create_parameter(dtype="float32", shape=[5, 10], lod_level=0, name="mul.x", regularizer=reg)
    assert mul_x.regularizer is reg
    mul_y = block.create_var(dtype="float32", shape=[10, 8], lod_level=0, name="mul.y")
    mul_out = block.create_var(dtype="float32", shape=[5, 8], lod_level=0, name="mul.out")
    block.append_op(type="mul", inputs={"X": mul_x, "Y": mul_y}, outputs={"Out": mul_out}, attrs={"x_num_col_dims": 1})
    mean_out = block.create_var(dtype="float32", shape=[1], lod_level=0, name="mean.out")
    block.append_op(type="mean", inputs={"X": mul_out}, outputs={"Out": mean_out})
    params_grads = append_backward(mean_out)
    assert len(params_grads) == 1
    count_ops = len(block.ops)
    params_grads = regularizer.append_regularization_ops(params_grads)
    assert len(params_grads) == 1
    return [op.type for op in block.ops[count_ops:]]


assert decay_ops(regularizer.L2DecayRegularizer(0.5)) == ["scale", "sum"]
assert decay_ops(regularizer.L1DecayRegularizer(0.5)) == ["sign", "scale", "sum"]


def bow_net(data, label, dict_dim, is_sparse=False, emb_dim=8, hid_dim=8, hid_dim2=6, class_dim=2):
    emb = fluid.layers.embedding(input=data, is_sparse=is_sparse, size=[dict_dim, emb_dim])
    bow = fluid.layers.sequence_pool(input=emb, pool_type="sum")
    bow_tanh = fluid.layers.tanh(bow)
    fc_1 = fluid.layers.fc(input=bow_tanh, size=hid_dim, act="tanh")
    fc_2 = fluid.layers.fc(input=fc_1, size=hid_dim2, act="tanh")
    prediction = fluid.layers.fc(input=[fc_2], size=class_dim, act="softmax")
    cost = fluid.layers.cross_entropy(input=prediction, label=label)
    return fluid.layers.mean(x=cost)


word_len = 1500
random.seed(0)
train_data = [[(random.sample(range(1000), 10), [0])] for _ in range(2)]


@contextlib.contextmanager
def scope_prog_guard(main_prog, startup_prog):
    scope = fluid.core.Scope()
    with fluid.unique_name.guard(), fluid.scope_guard(scope), fluid.program_guard(main_prog, startup_prog):
        yield


def run_program(place, feed_list):
    exe = fluid.Executor(place)
    feeder = fluid.DataFeeder(feed_list=feed_list, place=place)
    exe.run(fluid.default_startup_program())
    main_prog = fluid.default_main_program()
    param_list = [var.name for var in main_prog.block(0).all_parameters()]
    param_sum = []
    for data in train_data:
        out = exe.run(main_prog, feed=feeder.feed(data), fetch_list=param_list)
        param_sum.append(sum(np.sum(np.abs(v)) for v in out))
    return param_sum


def check_l2decay_regularizer(place, model):
    main_prog, startup_prog = fluid.framework.Program(), fluid.framework.Program()
    main_prog.random_seed = startup_prog.random_seed = 1
    with scope_prog_guard(main_prog, startup_prog):
        data = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        avg_cost = model(data, label, word_len)
        optimizer = fluid.optimizer.Adagrad(learning_rate=0.1, regularization=fluid.regularizer.L2Decay(1.0))
        optimizer.minimize(avg_cost)
        return run_program(place, [data, label])


def check_l2decay(place, model):
    main_prog, startup_prog = fluid.framework.Program(), fluid.framework.Program()
    main_prog.random_seed = startup_prog.random_seed = 1
    with scope_prog_guard(main_prog, startup_prog):
        data = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        avg_cost_l2 = model(data, label, word_len)
        param_list = fluid.default_main_program().block(0).all_parameters()
        para_sum = []
        for para in param_list:
            para_mul = fluid.layers.square(x=para)
            para_sum.append(fluid.layers.reduce_sum(input=para_mul))
        avg_cost_l2 += fluid.layers.sums(para_sum) * 0.5
        optimizer = fluid.optimizer.Adagrad(learning_rate=0.1)
        optimizer.minimize(avg_cost_l2)
        return run_program(place, [data, label])


for place in [core.CPUPlace()]:
    dense_sparse_p_sum = []
    for sparse in [True, False]:
        model = partial(bow_net, is_sparse=sparse)
        framework_l2 = check_l2decay_regularizer(place, model)
        l2 = check_l2decay(place, model)
        assert len(l2) == len(framework_l2)
        for i in range(len(l2)):
            assert np.isclose(a=framework_l2[i], b=l2[i], rtol=5e-5), (framework_l2[i], l2[i])
        dense_sparse_p_sum.append(framework_l2)
    assert len(dense_sparse_p_sum[0]) == len(dense_sparse_p_sum[1])
    for i in range(len(dense_sparse_p_sum[0])):
        assert np.isclose(a=dense_sparse_p_sum[0][i], b=dense_sparse_p_sum[1][i], rtol=5e-5)

l1 = fluid.regularizer.L1Decay(regularization_coeff=0.1)
l2 = fluid.regularizer.L2Decay(regularization_coeff=0.01)
fc_param_attr = fluid.ParamAttr(regularizer=fluid.regularizer.L1Decay())
with fluid.program_guard(fluid.Program(), fluid.Program()):
    x = fluid.layers.uniform_random([2, 2, 3])
    out = fluid.layers.fc(x, 5, param_attr=fc_param_attr)
    loss = fluid.layers.reduce_sum(out)
    sgd = fluid.optimizer.SGD(learning_rate=0.1, regularization=l2)
    sgd.minimize(loss)
print("ok")
