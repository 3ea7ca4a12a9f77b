# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_dyn_rnn.py @ 007ff517954ba21e534c48bea63f91eb750662cc
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. The two nested
# DynamicRNN cases (lod_level 2) are not ported: pe's DynamicRNN steps over one LoD level.
import numpy
import paddle
import paddle.fluid as fluid
from paddle.fluid.framework import Program, program_guard
from paddle.fluid.layers.control_flow import lod_rank_table
from paddle.fluid.layers.control_flow import max_sequence_len
from paddle.fluid.layers.control_flow import lod_tensor_to_array
from paddle.fluid.layers.control_flow import array_to_lod_tensor
from paddle.fluid.layers.control_flow import shrink_memory

WORD_DICT_LEN, BATCH_SIZE = 5147, 2
numpy.random.seed(0)


def fake_imdb_reader(word_dict_size, sample_num, lower_seq_len=100, upper_seq_len=200, class_dim=2):
    def reader():
        for _ in range(sample_num):
            length = numpy.random.randint(lower_seq_len, upper_seq_len + 1)
            ids = numpy.random.randint(0, word_dict_size, size=[length]).astype("int64")
            label = numpy.random.randint(0, class_dim)
            yield ids, label

    return reader


train_data = paddle.batch(fake_imdb_reader(WORD_DICT_LEN, BATCH_SIZE * 100), batch_size=BATCH_SIZE)


def train(main_program, startup_program, feed_list, fetch_list, max_iters=1):
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    exe.run(startup_program)
    feeder = fluid.DataFeeder(feed_list=feed_list, place=place)
    data = next(train_data())
    for iter_id in range(max_iters):
        fetch_outs = exe.run(main_program, feed=feeder.feed(data), fetch_list=fetch_list, return_numpy=False)
        rnn_in_seq, rnn_out_seq = fetch_outs[0], fetch_outs[1]
        # the lod of DynamicRNN's output is the input's
        assert rnn_in_seq.lod() == rnn_out_seq.lod(), (rnn_in_seq.lod(), rnn_out_seq.lod())
        loss_i = numpy.array(fetch_outs[2])
        assert loss_i.shape == (1,), loss_i.shape
        assert not numpy.isnan(loss_i)
        if iter_id == 0:
            loss_0 = loss_i
    if max_iters > 10:
        assert loss_i[0] < loss_0[0], (loss_i, loss_0)  # smaller after training on one mini-batch


# test_plain_while_op
main_program, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(main_program, startup_program):
    sentence = fluid.layers.data(name="word", shape=[1], dtype="int64", lod_level=1)
    sent_emb = fluid.layers.embedding(input=sentence, size=[WORD_DICT_LEN, 32], dtype="float32")
    rank_table = lod_rank_table(x=sent_emb)
    sent_emb_array = lod_tensor_to_array(x=sent_emb, table=rank_table)
    seq_len = max_sequence_len(rank_table=rank_table)
    i = fluid.layers.fill_constant(shape=[1], dtype="int64", value=0)
    i.stop_gradient = False
    boot_mem = fluid.layers.fill_constant_batch_size_like(
        input=fluid.layers.array_read(array=sent_emb_array, i=i), value=0, shape=[-1, 100], dtype="float32"
    )
    boot_mem.stop_gradient = False
    mem_array = fluid.layers.array_write(x=boot_mem, i=i)
    cond = fluid.layers.less_than(x=i, y=seq_len)
    cond.stop_gradient = False
    while_op = fluid.layers.While(cond=cond)
    out = fluid.layers.create_array(dtype="float32")
    with while_op.block():
        mem = fluid.layers.array_read(array=mem_array, i=i)
        ipt = fluid.layers.array_read(array=sent_emb_array, i=i)
        mem = shrink_memory(x=mem, i=i, table=rank_table)
        hidden = fluid.layers.fc(input=[mem, ipt], size=100, act="tanh")
        fluid.layers.array_write(x=hidden, i=i, array=out)
        fluid.layers.increment(x=i, in_place=True)
        fluid.layers.array_write(x=hidden, i=i, array=mem_array)
        fluid.layers.less_than(x=i, y=seq_len, cond=cond)
    result_all_timesteps = array_to_lod_tensor(x=out, table=rank_table)
    last = fluid.layers.sequence_last_step(input=result_all_timesteps)
    logits = fluid.layers.fc(input=last, size=1, act=None)
    label = fluid.layers.data(name="label", shape=[1], dtype="float32")
    loss = fluid.layers.mean(fluid.layers.sigmoid_cross_entropy_with_logits(x=logits, label=label))
    fluid.optimizer.SGD(1e-4).minimize(loss=loss)
assert sent_emb.lod_level == result_all_timesteps.lod_level  # set at build time
train(main_program, startup_program, [sentence, label], [sent_emb, result_all_timesteps, loss], max_iters=1)

# test_train_dynamic_rnn
main_program, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(main_program, startup_program):
    sentence = fluid.layers.data(name="word", shape=[1], dtype="int64", lod_level=1)
    sent_emb = fluid.layers.embedding(input=sentence, size=[WORD_DICT_LEN, 32], dtype="float32")
    drnn = fluid.layers.DynamicRNN()
    with drnn.block():
        in_ = drnn.step_input(sent_emb)
        mem = drnn.memory(shape=[100], dtype="float32")
        out_ = fluid.layers.fc(input=[in_, mem], size=100, act="tanh")
        drnn.update_memory(mem, out_)
        drnn.output(out_)
    drnn_result = drnn()
    last = fluid.layers.sequence_last_step(input=drnn_result)
    logits = fluid.layers.fc(input=last, size=1, act=None)
    label = fluid.layers.data(name="label", shape=[1], dtype="float32")
    loss = fluid.layers.mean(fluid.layers.sigmoid_cross_entropy_with_logits(x=logits, label=label))
    fluid.optimizer.Adam(1e-3).minimize(loss=loss)
assert sent_emb.lod_level == drnn_result.lod_level
train(main_program, startup_program, [sentence, label], [sent_emb, drnn_result, loss], max_iters=100)

# TestDynamicRNNErrors: memory's shape must be a list or tuple
with program_guard(Program(), Program()):
    init = fluid.layers.zeros(shape=[1], dtype="float32")
    try:
        drnn = fluid.layers.DynamicRNN()
        with drnn.block():
            drnn.memory(init, "shape")
        raise AssertionError("memory accepted a string shape")
    except TypeError:
        pass
print("ok")
