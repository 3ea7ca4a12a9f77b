# after: PaddlePaddle/Paddle python/paddle/fluid/tests/book/test_rnn_encoder_decoder.py @ 04310a550f5aceb9a1125ae3f733b313c21f8678
# Re-written for pe: the book's bi_lstm_encoder (two dynamic_lstm without peepholes, one reversed; the
# forward's last and the backward's first step), its hand-written lstm_step (four fc gates over
# [hidden, x], sums, elementwise products) inside a DynamicRNN decoder (step_input, static_input of
# the encoded vector, memory with need_reorder=True, a cell memory from fill_constant_batch_size_like
# with stop_gradient False, softmax output), Adagrad, 5 batches, save_inference_model, then inference
# on random LoD ids with return_numpy=False. That commit's 2.x calls (paddle.enable_static, F.sigmoid,
# paddle.tanh, paddle.multiply, paddle.mean) are written as their Fluid 1.x layers. paddle.dataset.wmt14
# (not downloaded) is a local reader of random sentence pairs of 3-8 words.
# pe's additions: the costs are finite and near log(dict_size); the inference output keeps the LoD.
import math
import os
import sys
import tempfile

import numpy as np
import paddle
import paddle.fluid as fluid
import paddle.fluid.framework as framework
from paddle.fluid.executor import Executor

dict_size = 30000
source_dict_dim = target_dict_dim = dict_size
hidden_dim = 32
embedding_dim = 16
batch_size = 10
encoder_size = decoder_size = hidden_dim
IS_SPARSE = True
USE_PEEPHOLES = False


def wmt14_like(dict_size):
    def reader():
        rng = np.random.default_rng(5)
        for _ in range(60):
            src = rng.integers(2, dict_size, int(rng.integers(3, 9))).tolist()
            trg = rng.integers(2, dict_size, int(rng.integers(3, 9))).tolist()
            yield src, [0] + trg, trg + [1]

    return reader


def bi_lstm_encoder(input_seq, hidden_size):
    input_forward_proj = fluid.layers.fc(input=input_seq, size=hidden_size * 4, bias_attr=True)
    forward, _ = fluid.layers.dynamic_lstm(input=input_forward_proj, size=hidden_size * 4, use_peepholes=USE_PEEPHOLES)
    input_backward_proj = fluid.layers.fc(input=input_seq, size=hidden_size * 4, bias_attr=True)
    backward, _ = fluid.layers.dynamic_lstm(
        input=input_backward_proj, size=hidden_size * 4, is_reverse=True, use_peepholes=USE_PEEPHOLES
    )
    forward_last = fluid.layers.sequence_last_step(input=forward)
    backward_first = fluid.layers.sequence_first_step(input=backward)
    return forward_last, backward_first


def lstm_step(x_t, hidden_t_prev, cell_t_prev, size):
    def linear(inputs):
        return fluid.layers.fc(input=inputs, size=size, bias_attr=True)

    forget_gate = fluid.layers.sigmoid(x=linear([hidden_t_prev, x_t]))
    input_gate = fluid.layers.sigmoid(x=linear([hidden_t_prev, x_t]))
    output_gate = fluid.layers.sigmoid(x=linear([hidden_t_prev, x_t]))
    cell_tilde = fluid.layers.tanh(x=linear([hidden_t_prev, x_t]))
    cell_t = fluid.layers.sums(
        input=[
            fluid.layers.elementwise_mul(x=forget_gate, y=cell_t_prev),
            fluid.layers.elementwise_mul(x=input_gate, y=cell_tilde),
        ]
    )
    hidden_t = fluid.layers.elementwise_mul(x=output_gate, y=fluid.layers.tanh(x=cell_t))
    return hidden_t, cell_t


def lstm_decoder_without_attention(target_embedding, decoder_boot, context, decoder_size):
    rnn = fluid.layers.DynamicRNN()
    cell_init = fluid.layers.fill_constant_batch_size_like(
        input=decoder_boot, value=0.0, shape=[-1, decoder_size], dtype="float32"
    )
    cell_init.stop_gradient = False
    with rnn.block():
        current_word = rnn.step_input(target_embedding)
        context = rnn.static_input(context)
        hidden_mem = rnn.memory(init=decoder_boot, need_reorder=True)
        cell_mem = rnn.memory(init=cell_init)
        decoder_inputs = fluid.layers.concat(input=[context, current_word], axis=1)
        h, c = lstm_step(decoder_inputs, hidden_mem, cell_mem, decoder_size)
        rnn.update_memory(hidden_mem, h)
        rnn.update_memory(cell_mem, c)
        out = fluid.layers.fc(input=h, size=target_dict_dim, bias_attr=True, act="softmax")
        rnn.output(out)
    return rnn()


def seq_to_seq_net():
    src_word_idx = fluid.layers.data(name="source_sequence", shape=[1], dtype="int64", lod_level=1)
    src_embedding = fluid.layers.embedding(input=src_word_idx, size=[source_dict_dim, embedding_dim], dtype="float32")
    src_forward_last, src_backward_first = bi_lstm_encoder(input_seq=src_embedding, hidden_size=encoder_size)
    encoded_vector = fluid.layers.concat(input=[src_forward_last, src_backward_first], axis=1)
    decoder_boot = fluid.layers.fc(input=src_backward_first, size=decoder_size, bias_attr=False, act="tanh")
    trg_word_idx = fluid.layers.data(name="target_sequence", shape=[1], dtype="int64", lod_level=1)
    trg_embedding = fluid.layers.embedding(input=trg_word_idx, size=[target_dict_dim, embedding_dim], dtype="float32")
    prediction = lstm_decoder_without_attention(trg_embedding, decoder_boot, encoded_vector, decoder_size)
    label = fluid.layers.data(name="label_sequence", shape=[1], dtype="int64", lod_level=1)
    cost = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_cost = fluid.layers.mean(cost)
    return avg_cost, prediction


def train(save_dirname=None):
    [avg_cost, prediction] = seq_to_seq_net()
    optimizer = fluid.optimizer.Adagrad(learning_rate=1e-4)
    optimizer.minimize(avg_cost)
    train_data = paddle.batch(paddle.reader.shuffle(wmt14_like(dict_size), buf_size=1000), batch_size=batch_size)
    place = fluid.CPUPlace()
    exe = Executor(place)
    exe.run(framework.default_startup_program())
    feed_order = ["source_sequence", "target_sequence", "label_sequence"]
    feed_list = [framework.default_main_program().global_block().var(var_name) for var_name in feed_order]
    feeder = fluid.DataFeeder(feed_list, place)
    batch_id = 0
    for pass_id in range(2):
        for data in train_data():
            outs = exe.run(framework.default_main_program(), feed=feeder.feed(data), fetch_list=[avg_cost])
            avg_cost_val = np.array(outs[0])
            print("pass_id=" + str(pass_id) + " batch=" + str(batch_id) + " avg_cost=" + str(avg_cost_val))
            if math.isnan(float(avg_cost_val[0])):
                sys.exit("got NaN loss, training failed.")
            assert abs(float(avg_cost_val[0]) - math.log(dict_size)) < 1.0, avg_cost_val
            if batch_id > 3:
                if save_dirname is not None:
                    fluid.io.save_inference_model(
                        save_dirname, ["source_sequence", "target_sequence"], [prediction], exe
                    )
                return
            batch_id += 1


def infer(save_dirname=None):
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    inference_scope = fluid.core.Scope()
    with fluid.scope_guard(inference_scope):
        [inference_program, feed_target_names, fetch_targets] = fluid.io.load_inference_model(save_dirname, exe)
        recursive_seq_lens = [[4, 6]]
        base_shape = [1]
        word_data = fluid.create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low=0, high=1)
        trg_word = fluid.create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low=0, high=1)
        assert feed_target_names[0] == "source_sequence"
        assert feed_target_names[1] == "target_sequence"
        results = exe.run(
            inference_program,
            feed={feed_target_names[0]: word_data, feed_target_names[1]: trg_word},
            fetch_list=fetch_targets,
            return_numpy=False,
        )
        print(results[0].recursive_sequence_lengths())
        np_data = np.array(results[0])
        print("Inference shape: ", np_data.shape)
        assert results[0].recursive_sequence_lengths() == [[4, 6]] and np_data.shape == (10, dict_size)
        np.testing.assert_allclose(np_data.sum(axis=1), 1.0, rtol=1e-4)  # softmax rows


def main():
    temp_dir = tempfile.TemporaryDirectory()
    save_dirname = os.path.join(temp_dir.name, "rnn_encoder_decoder.inference.model")
    prog, startup_prog, scope = fluid.Program(), fluid.Program(), fluid.core.Scope()
    with fluid.scope_guard(scope), fluid.program_guard(prog, startup_prog):
        train(save_dirname)
        infer(save_dirname)
    temp_dir.cleanup()
    print("ok")


if __name__ == "__main__":
    main()
