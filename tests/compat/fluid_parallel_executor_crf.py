# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_crf.py @ 057a682ee9468cb02688f5185eb8f89ed0528f61
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices: the
# semantic-role db_lstm (8 embedded features, summed fcs, dynamic_lstms of alternating direction with
# direct edges) under linear_chain_crf, trained by a ParallelExecutor with SGD on an exponential_decay
# learning rate for 10 batches of 16 sentences, with sparse and dense embedding updates, under
# AllReduce and Reduce; every fetched loss is finite. Smaller to keep it short (hidden 64, depth 4,
# not 512 and 8), and on a local conll05-like reader (paddle.dataset.conll05 is not downloaded):
# random sentences of 5-14 words, one predicate, the five context words around it, a mark of the
# predicate's neighbourhood and IOB labels of an A0 chunk before and an A1 chunk after it.
# The CUDA cases run where CUDA is.
import os

import numpy as np

import paddle
import paddle.fluid as fluid

word_dict_len, pred_dict_len, label_dict_len = 200, 12, 7
mark_dict_len = 2
word_dim = 32
mark_dim = 5
hidden_dim = 64
depth = 4
mix_hidden_lr = 1e-3
embedding_name = "emb"


def conll05_like_test():
    """Samples as paddle.dataset.conll05.test() gives them: word, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2,
    predicate, mark and label id lists of the sentence's length."""

    def reader():
        rng = np.random.RandomState(11)
        for _ in range(400):
            n = rng.randint(5, 15)
            words = rng.randint(0, word_dict_len, n)
            p = rng.randint(1, n - 1)
            ctx = [int(words[min(max(p + d, 0), n - 1)]) for d in (-2, -1, 0, 1, 2)]
            mark = [int(abs(i - p) <= 1) for i in range(n)]
            labels = [4 if i == p else (0 if i == 0 else 1) if i < p else (2 if i == p + 1 else 3) for i in range(n)]
            yield (
                [int(w) for w in words],
                *[[c] * n for c in ctx],
                [int(rng.randint(0, pred_dict_len))] * n,
                mark,
                labels,
            )

    return reader


def db_lstm(word, predicate, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, mark, is_sparse, **ignored):
    predicate_embedding = fluid.layers.embedding(
        input=predicate, is_sparse=is_sparse, size=[pred_dict_len, word_dim], dtype="float32", param_attr="vemb"
    )
    mark_embedding = fluid.layers.embedding(
        input=mark, is_sparse=is_sparse, size=[mark_dict_len, mark_dim], dtype="float32"
    )
    word_input = [word, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2]
    emb_layers = [
        fluid.layers.embedding(
            size=[word_dict_len, word_dim],
            is_sparse=is_sparse,
            input=x,
            param_attr=fluid.ParamAttr(name=embedding_name, trainable=False),
        )
        for x in word_input
    ]
    emb_layers.append(predicate_embedding)
    emb_layers.append(mark_embedding)
    hidden_0 = fluid.layers.sums(input=[fluid.layers.fc(input=emb, size=hidden_dim, act="tanh") for emb in emb_layers])
    lstm_0 = fluid.layers.dynamic_lstm(
        input=hidden_0,
        size=hidden_dim,
        candidate_activation="relu",
        gate_activation="sigmoid",
        cell_activation="sigmoid",
    )
    input_tmp = [hidden_0, lstm_0]
    for i in range(1, depth):
        mix_hidden = fluid.layers.sums(
            input=[
                fluid.layers.fc(input=input_tmp[0], size=hidden_dim, act="tanh"),
                fluid.layers.fc(input=input_tmp[1], size=hidden_dim, act="tanh"),
            ]
        )
        lstm = fluid.layers.dynamic_lstm(
            input=mix_hidden,
            size=hidden_dim,
            candidate_activation="relu",
            gate_activation="sigmoid",
            cell_activation="sigmoid",
            is_reverse=((i % 2) == 1),
        )
        input_tmp = [mix_hidden, lstm]
    return fluid.layers.sums(
        input=[
            fluid.layers.fc(input=input_tmp[0], size=label_dict_len, act="tanh"),
            fluid.layers.fc(input=input_tmp[1], size=label_dict_len, act="tanh"),
        ]
    )


def check_network_convergence(is_sparse, build_strategy=None, use_cuda=True):
    os.environ["CPU_NUM"] = str(4)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        seq = dict(shape=[1], dtype="int64", lod_level=1)
        word = fluid.layers.data(name="word_data", **seq)
        predicate = fluid.layers.data(name="verb_data", **seq)
        ctx_n2 = fluid.layers.data(name="ctx_n2_data", **seq)
        ctx_n1 = fluid.layers.data(name="ctx_n1_data", **seq)
        ctx_0 = fluid.layers.data(name="ctx_0_data", **seq)
        ctx_p1 = fluid.layers.data(name="ctx_p1_data", **seq)
        ctx_p2 = fluid.layers.data(name="ctx_p2_data", **seq)
        mark = fluid.layers.data(name="mark_data", **seq)
        feature_out = db_lstm(word, predicate, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, mark, is_sparse)
        target = fluid.layers.data(name="target", **seq)
        crf_cost = fluid.layers.linear_chain_crf(
            input=feature_out, label=target, param_attr=fluid.ParamAttr(name="crfw", learning_rate=1e-1)
        )
        avg_cost = fluid.layers.mean(crf_cost)
        sgd_optimizer = fluid.optimizer.SGD(
            learning_rate=fluid.layers.exponential_decay(
                learning_rate=0.01, decay_steps=100000, decay_rate=0.5, staircase=True
            )
        )
        sgd_optimizer.minimize(avg_cost)
        train_data = paddle.batch(paddle.reader.shuffle(conll05_like_test(), buf_size=8192), batch_size=16)
        place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
        exe = fluid.Executor(place)
        exe.run(startup)
        pe = fluid.ParallelExecutor(use_cuda=use_cuda, loss_name=avg_cost.name, build_strategy=build_strategy)
        feeder = fluid.DataFeeder(
            feed_list=[word, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, predicate, mark, target], place=fluid.CPUPlace()
        )
        data = train_data()
        for _ in range(10):
            cur_batch = next(data)
            (loss,) = pe.run(feed=feeder.feed(cur_batch), fetch_list=[avg_cost.name])
            print(loss)
            assert loss.shape == (4,) and np.isfinite(loss).all(), loss


for reduce_strategy in (fluid.BuildStrategy.ReduceStrategy.AllReduce, fluid.BuildStrategy.ReduceStrategy.Reduce):
    for is_sparse in (True, False):
        build_strategy = fluid.BuildStrategy()
        build_strategy.reduce_strategy = reduce_strategy
        if fluid.core.is_compiled_with_cuda():
            check_network_convergence(is_sparse=is_sparse, build_strategy=build_strategy, use_cuda=True)
        check_network_convergence(is_sparse=is_sparse, build_strategy=build_strategy, use_cuda=False)
print("ok")
