# after: PaddlePaddle/Paddle python/paddle/fluid/tests/book/test_label_semantic_roles.py @ 007ff517954ba21e534c48bea63f91eb750662cc
# Re-written for pe: the book's db_lstm (8 features: the word, 5 context words around the predicate,
# the predicate and a mark, each embedded; fc of each, summed; dynamic_lstm stacked with alternating
# directions and direct edges; tanh fc to the labels) trained with linear_chain_crf and decoded with
# crf_decoding sharing the transition 'crfw', then save/load_inference_model and inference on random
# LoD ids, as the book does. Smaller for CI (hidden 64, depth 4) and on a generated conll05-like set
# instead of paddle.dataset.conll05 (not downloaded): sentences of 4-12 words with one predicate; words
# before it form an A0 chunk and after it an A1 chunk (IOB), "stop" words are O and split chunks.
# Stopping: the book stops below a fixed cost; here when a pass's mean cost is below a third of the
# first pass's.
# pe's additions (after the book's loop): chunk_eval of crf_decoding on held-out sentences.
import random
import tempfile

import numpy as np
import paddle
import paddle.fluid as fluid

word_dict_len, pred_dict_len, mark_dict_len = 30, 6, 2
# chunk types A0, A1, V in IOB: B-A0 0, I-A0 1, B-A1 2, I-A1 3, B-V 4, I-V 5, O 6
label_dict_len, NUM_CHUNK_TYPES = 7, 3
word_dim, mark_dim, hidden_dim, depth = 16, 5, 64, 4
mix_hidden_lr = 1e-3
IS_SPARSE = True
PASS_NUM, BATCH_SIZE = 30, 10
embedding_name = "emb"


def sentence(rng):
    n = int(rng.integers(4, 13))
    words = rng.integers(0, word_dict_len, n)
    p = int(rng.integers(1, n - 1))
    labels, prev = [], None
    for i, w in enumerate(words):
        kind = "V" if i == p else ("O" if w % 10 == 0 else ("A0" if i < p else "A1"))
        if kind == "O":
            labels.append(6)
        else:
            t = {"A0": 0, "A1": 1, "V": 2}[kind]
            labels.append(2 * t + (1 if prev == kind else 0))
        prev = kind
    ctx = [words[min(max(p + d, 0), n - 1)] for d in (-2, -1, 0, 1, 2)]
    mark = [1 if abs(i - p) <= 1 else 0 for i in range(n)]
    verb = int(rng.integers(0, pred_dict_len))
    return [list(words)] + [[c] * n for c in ctx] + [[verb] * n, mark, labels]


def conll05_like(count, seed):
    def reader():
        rng = np.random.default_rng(seed)
        for _ in range(count):
            yield tuple(sentence(rng))

    return reader


def db_lstm(word, predicate, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, mark, **ignored):
    predicate_embedding = fluid.layers.embedding(
        input=predicate, size=[pred_dict_len, word_dim], dtype="float32", is_sparse=IS_SPARSE, param_attr="vemb"
    )
    mark_embedding = fluid.layers.embedding(
        input=mark, size=[mark_dict_len, mark_dim], dtype="float32", is_sparse=IS_SPARSE
    )
    word_input = [word, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2]
    emb_layers = [
        fluid.layers.embedding(
            size=[word_dict_len, word_dim], input=x, param_attr=fluid.ParamAttr(name=embedding_name, trainable=False)
        )
        for x in word_input
    ]
    emb_layers.append(predicate_embedding)
    emb_layers.append(mark_embedding)
    hidden_0_layers = [fluid.layers.fc(input=emb, size=hidden_dim) for emb in emb_layers]
    hidden_0 = fluid.layers.sums(input=hidden_0_layers)
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
                fluid.layers.fc(input=input_tmp[0], size=hidden_dim),
                fluid.layers.fc(input=input_tmp[1], size=hidden_dim),
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
    feature_out = fluid.layers.sums(
        input=[
            fluid.layers.fc(input=input_tmp[0], size=label_dict_len, act="tanh"),
            fluid.layers.fc(input=input_tmp[1], size=label_dict_len, act="tanh"),
        ]
    )
    return feature_out


def train(save_dirname):
    word = fluid.layers.data(name="word_data", shape=[1], dtype="int64", lod_level=1)
    predicate = fluid.layers.data(name="verb_data", shape=[1], dtype="int64", lod_level=1)
    ctx_n2 = fluid.layers.data(name="ctx_n2_data", shape=[1], dtype="int64", lod_level=1)
    ctx_n1 = fluid.layers.data(name="ctx_n1_data", shape=[1], dtype="int64", lod_level=1)
    ctx_0 = fluid.layers.data(name="ctx_0_data", shape=[1], dtype="int64", lod_level=1)
    ctx_p1 = fluid.layers.data(name="ctx_p1_data", shape=[1], dtype="int64", lod_level=1)
    ctx_p2 = fluid.layers.data(name="ctx_p2_data", shape=[1], dtype="int64", lod_level=1)
    mark = fluid.layers.data(name="mark_data", shape=[1], dtype="int64", lod_level=1)
    feature_out = db_lstm(**locals())
    target = fluid.layers.data(name="target", shape=[1], dtype="int64", lod_level=1)
    crf_cost = fluid.layers.linear_chain_crf(
        input=feature_out, label=target, param_attr=fluid.ParamAttr(name="crfw", learning_rate=mix_hidden_lr)
    )
    avg_cost = fluid.layers.mean(crf_cost)
    sgd_optimizer = fluid.optimizer.SGD(
        learning_rate=fluid.layers.exponential_decay(
            learning_rate=0.01, decay_steps=100000, decay_rate=0.5, staircase=True
        )
    )
    sgd_optimizer.minimize(avg_cost)
    crf_decode = fluid.layers.crf_decoding(input=feature_out, param_attr=fluid.ParamAttr(name="crfw"))

    train_data = paddle.batch(paddle.reader.shuffle(conll05_like(400, 1), buf_size=8192), batch_size=BATCH_SIZE)
    place = fluid.CPUPlace()
    feeder = fluid.DataFeeder(
        feed_list=[word, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, predicate, mark, target], place=place
    )
    exe = fluid.Executor(place)
    exe.run(fluid.default_startup_program())
    embedding_param = fluid.global_scope().find_var(embedding_name).get_tensor()
    embedding_param.set(np.random.default_rng(0).normal(0, 0.5, (word_dict_len, word_dim)).astype("float32"), place)
    first = None
    for pass_id in range(PASS_NUM):
        costs = []
        for batch_id, data in enumerate(train_data()):
            cost = exe.run(fluid.default_main_program(), feed=feeder.feed(data), fetch_list=[avg_cost])[0]
            costs.append(float(cost))
            if batch_id % 10 == 0:
                print("pass %d batch %d avg_cost: %s" % (pass_id, batch_id, cost))
        first = first or np.mean(costs)
        if np.mean(costs) < first / 3:
            fluid.io.save_inference_model(
                save_dirname,
                [
                    "word_data",
                    "verb_data",
                    "ctx_n2_data",
                    "ctx_n1_data",
                    "ctx_0_data",
                    "ctx_p1_data",
                    "ctx_p2_data",
                    "mark_data",
                ],
                [feature_out],
                exe,
            )
            return feeder, crf_decode, target, exe
    raise RuntimeError("This model should save_inference_model and return, but not reach here, please check!")


def held_out_f1(feeder, crf_decode, target, exe):
    # use_prune: only the ops the fetch needs run (the forward, crf_decoding, chunk_eval), no update
    precision, recall, f1, *_ = fluid.layers.chunk_eval(
        input=crf_decode, label=target, chunk_scheme="IOB", num_chunk_types=NUM_CHUNK_TYPES
    )
    data = list(conll05_like(50, 2)())
    (f1_value,) = exe.run(fluid.default_main_program(), feed=feeder.feed(data), fetch_list=[f1], use_prune=True)
    return float(np.array(f1_value).reshape(-1)[0])


def infer(save_dirname):
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    inference_scope = fluid.core.Scope()
    with fluid.scope_guard(inference_scope):
        [inference_program, feed_target_names, fetch_targets] = fluid.io.load_inference_model(save_dirname, exe)
        recursive_seq_lens = [[3, 4, 2]]
        base_shape = [1]
        feed = {}
        for name, high in zip(
            feed_target_names, [word_dict_len, pred_dict_len] + [word_dict_len] * 5 + [mark_dict_len]
        ):
            feed[name] = fluid.create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low=0, high=high - 1)
        assert feed_target_names == [
            "word_data",
            "verb_data",
            "ctx_n2_data",
            "ctx_n1_data",
            "ctx_0_data",
            "ctx_p1_data",
            "ctx_p2_data",
            "mark_data",
        ]
        results = exe.run(inference_program, feed=feed, fetch_list=fetch_targets, return_numpy=False)
        print(results[0].recursive_sequence_lengths())
        np_data = np.array(results[0])
        print("Inference Shape: ", np_data.shape)
        assert results[0].recursive_sequence_lengths() == [[3, 4, 2]] and np_data.shape == (9, label_dict_len)


def main():
    save_dirname = tempfile.mkdtemp()
    prog, startup_prog, scope = fluid.Program(), fluid.Program(), fluid.core.Scope()
    prog.random_seed = startup_prog.random_seed = 1  # for a repeatable CI run (the book seeds nothing)
    random.seed(1)  # paddle.reader.shuffle's order
    with fluid.scope_guard(scope), fluid.program_guard(prog, startup_prog):
        feeder, crf_decode, target, exe = train(save_dirname)
        f1 = held_out_f1(feeder, crf_decode, target, exe)
        print("held-out chunk F1: %.3f" % f1)
        assert f1 > 0.6, f1  # an untrained tagger scores below 0.1; seeds 1-3 stop at 0.75-0.86
    infer(save_dirname)
    print("ok")


if __name__ == "__main__":
    main()
