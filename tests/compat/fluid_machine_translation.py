# after: PaddlePaddle/Paddle python/paddle/fluid/tests/book/test_machine_translation.py @ 00a5411d368a68a6324bb9fdbf0c47b0b4513fec
# Re-written for pe: the book's encoder (embedding 'vemb' -> fc tanh -> dynamic_lstm -> last step), its
# training decoder (DynamicRNN: step_input of the target words, memory initialised by the context, fc
# tanh, softmax fc, update_memory, output) with cross_entropy and Adagrad + L2 decay, trained 5 batches
# dense and sparse; and its generation program (While over tensor arrays, sequence_expand, lod_reset,
# topk, log + reshape, beam_search, is_empty / logical_and as the stop condition, beam_search_decode)
# run once, printing the hypotheses' LoD. That commit's 2.x calls (paddle.enable_static, F.log,
# paddle.reshape, paddle.logical_not) are written as their Fluid 1.x layers (pd.log, pd.reshape,
# pd.logical_not). paddle.dataset.wmt14 (not downloaded) is a local reader of random sentence pairs of
# 3-8 words. pe's additions: checks that the costs are finite and that decoding gives each source at
# most beam_size hypotheses, each starting with the start id.
import contextlib

import numpy as np
import paddle
import paddle.fluid as fluid
import paddle.fluid.framework as framework
import paddle.fluid.layers as pd
from paddle.fluid.executor import Executor

dict_size = 30000
source_dict_dim = target_dict_dim = dict_size
hidden_dim = 32
word_dim = 16
batch_size = 2
max_length = 8
beam_size = 2
decoder_size = hidden_dim


def wmt14_like(dict_size):
    def reader():
        rng = np.random.default_rng(3)
        for _ in range(40):
            src = rng.integers(2, dict_size, int(rng.integers(3, 9))).tolist()
            trg = rng.integers(2, dict_size, int(rng.integers(3, 9))).tolist()
            yield src, [0] + trg, trg + [1]

    return reader


def encoder(is_sparse):
    src_word_id = pd.data(name="src_word_id", shape=[1], dtype="int64", lod_level=1)
    src_embedding = pd.embedding(
        input=src_word_id,
        size=[dict_size, word_dim],
        dtype="float32",
        is_sparse=is_sparse,
        param_attr=fluid.ParamAttr(name="vemb"),
    )
    fc1 = pd.fc(input=src_embedding, size=hidden_dim * 4, act="tanh")
    lstm_hidden0, lstm_0 = pd.dynamic_lstm(input=fc1, size=hidden_dim * 4)
    encoder_out = pd.sequence_last_step(input=lstm_hidden0)
    return encoder_out


def decoder_train(context, is_sparse):
    trg_language_word = pd.data(name="target_language_word", shape=[1], dtype="int64", lod_level=1)
    trg_embedding = pd.embedding(
        input=trg_language_word,
        size=[dict_size, word_dim],
        dtype="float32",
        is_sparse=is_sparse,
        param_attr=fluid.ParamAttr(name="vemb"),
    )
    rnn = pd.DynamicRNN()
    with rnn.block():
        current_word = rnn.step_input(trg_embedding)
        pre_state = rnn.memory(init=context)
        current_state = pd.fc(input=[current_word, pre_state], size=decoder_size, act="tanh")
        current_score = pd.fc(input=current_state, size=target_dict_dim, act="softmax")
        rnn.update_memory(pre_state, current_state)
        rnn.output(current_score)
    return rnn()


def decoder_decode(context, is_sparse):
    init_state = context
    array_len = pd.fill_constant(shape=[1], dtype="int64", value=max_length)
    counter = pd.zeros(shape=[1], dtype="int64", force_cpu=True)
    state_array = pd.create_array("float32")
    pd.array_write(init_state, array=state_array, i=counter)
    ids_array = pd.create_array("int64")
    scores_array = pd.create_array("float32")
    init_ids = pd.data(name="init_ids", shape=[1], dtype="int64", lod_level=2)
    init_scores = pd.data(name="init_scores", shape=[1], dtype="float32", lod_level=2)
    pd.array_write(init_ids, array=ids_array, i=counter)
    pd.array_write(init_scores, array=scores_array, i=counter)
    cond = pd.less_than(x=counter, y=array_len)
    while_op = pd.While(cond=cond)
    with while_op.block():
        pre_ids = pd.array_read(array=ids_array, i=counter)
        pre_state = pd.array_read(array=state_array, i=counter)
        pre_score = pd.array_read(array=scores_array, i=counter)
        pre_state_expanded = pd.sequence_expand(pre_state, pre_score)
        pre_ids_emb = pd.embedding(input=pre_ids, size=[dict_size, word_dim], dtype="float32", is_sparse=is_sparse)
        current_state = pd.fc(input=[pre_state_expanded, pre_ids_emb], size=decoder_size, act="tanh")
        current_state_with_lod = pd.lod_reset(x=current_state, y=pre_score)
        current_score = pd.fc(input=current_state_with_lod, size=target_dict_dim, act="softmax")
        topk_scores, topk_indices = pd.topk(current_score, k=beam_size)
        accu_scores = pd.elementwise_add(x=pd.log(topk_scores), y=pd.reshape(pre_score, shape=[-1]), axis=0)
        selected_ids, selected_scores = pd.beam_search(
            pre_ids, pre_score, topk_indices, accu_scores, beam_size, end_id=10, level=0
        )
        pd.increment(x=counter, value=1, in_place=True)
        pd.array_write(current_state, array=state_array, i=counter)
        pd.array_write(selected_ids, array=ids_array, i=counter)
        pd.array_write(selected_scores, array=scores_array, i=counter)
        length_cond = pd.less_than(x=counter, y=array_len)
        finish_cond = pd.logical_not(pd.is_empty(x=selected_ids))
        pd.logical_and(x=length_cond, y=finish_cond, out=cond)
    translation_ids, translation_scores = pd.beam_search_decode(
        ids=ids_array, scores=scores_array, beam_size=beam_size, end_id=10
    )
    return translation_ids, translation_scores


def train_main(is_sparse):
    place = fluid.CPUPlace()
    context = encoder(is_sparse)
    rnn_out = decoder_train(context, is_sparse)
    label = pd.data(name="target_language_next_word", shape=[1], dtype="int64", lod_level=1)
    cost = pd.cross_entropy(input=rnn_out, label=label)
    avg_cost = pd.mean(cost)
    optimizer = fluid.optimizer.Adagrad(
        learning_rate=1e-4, regularization=fluid.regularizer.L2DecayRegularizer(regularization_coeff=0.1)
    )
    optimizer.minimize(avg_cost)
    train_data = paddle.batch(paddle.reader.shuffle(wmt14_like(dict_size), buf_size=1000), batch_size=batch_size)
    feed_order = ["src_word_id", "target_language_word", "target_language_next_word"]
    exe = Executor(place)
    main_program = framework.default_main_program()
    exe.run(framework.default_startup_program())
    feed_list = [main_program.global_block().var(var_name) for var_name in feed_order]
    feeder = fluid.DataFeeder(feed_list, place)
    batch_id = 0
    for pass_id in range(1):
        for data in train_data():
            outs = exe.run(main_program, feed=feeder.feed(data), fetch_list=[avg_cost])
            avg_cost_val = np.array(outs[0])
            print("pass_id=" + str(pass_id) + " batch=" + str(batch_id) + " avg_cost=" + str(avg_cost_val))
            # cross entropy over 30,000 words starts near log(30000) = 10.3
            assert np.all(np.isfinite(avg_cost_val)) and 5 < avg_cost_val.reshape(-1)[0] < 15, avg_cost_val
            if batch_id > 3:
                break
            batch_id += 1


def decode_main(is_sparse):
    place = fluid.CPUPlace()
    context = encoder(is_sparse)
    translation_ids, translation_scores = decoder_decode(context, is_sparse)
    exe = Executor(place)
    exe.run(framework.default_startup_program())
    init_ids_data = np.array([1 for _ in range(batch_size)], dtype="int64").reshape((batch_size, 1))
    init_scores_data = np.array([1.0 for _ in range(batch_size)], dtype="float32").reshape((batch_size, 1))
    init_recursive_seq_lens = [1] * batch_size
    init_recursive_seq_lens = [init_recursive_seq_lens, init_recursive_seq_lens]
    init_ids = fluid.create_lod_tensor(init_ids_data, init_recursive_seq_lens, place)
    init_scores = fluid.create_lod_tensor(init_scores_data, init_recursive_seq_lens, place)
    train_data = paddle.batch(paddle.reader.shuffle(wmt14_like(dict_size), buf_size=1000), batch_size=batch_size)
    feed_order = ["src_word_id"]
    feed_list = [framework.default_main_program().global_block().var(var_name) for var_name in feed_order]
    feeder = fluid.DataFeeder(feed_list, place)
    for data in train_data():
        feed_dict = feeder.feed([[x[0]] for x in data])
        feed_dict["init_ids"] = init_ids
        feed_dict["init_scores"] = init_scores
        result_ids, result_scores = exe.run(
            framework.default_main_program(),
            feed=feed_dict,
            fetch_list=[translation_ids, translation_scores],
            return_numpy=False,
        )
        lens = result_ids.recursive_sequence_lengths()
        print(lens)
        assert len(lens) == 2 and len(lens[0]) == batch_size and all(1 <= n <= beam_size for n in lens[0]), lens
        offsets = np.cumsum([0] + lens[1])
        ids = np.array(result_ids).reshape(-1)
        assert all(ids[o] == 1 for o in offsets[:-1])  # every hypothesis starts with the start id
        break


@contextlib.contextmanager
def scope_prog_guard():
    prog = fluid.Program()
    startup_prog = fluid.Program()
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        with fluid.program_guard(prog, startup_prog):
            yield


if __name__ == "__main__":
    for is_sparse in (False, True):
        with scope_prog_guard():
            train_main(is_sparse)
        with scope_prog_guard():
            decode_main(is_sparse)
    print("ok")
