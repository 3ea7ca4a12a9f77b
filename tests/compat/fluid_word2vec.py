# after: PaddlePaddle/Paddle python/paddle/fluid/tests/book/test_word2vec.py @ 02ebd231efaf1a4d63c6eba67895e465463d6e95
# Re-written for pe (the same Fluid calls and facts), run with `pe fluid`: the case CI runs there
# (CPU, sparse embeddings, not parallel). The local data reader: Paddle's cache archive
# ~/.cache/paddle/dataset/imikolov/simple-examples.tgz is written first with a small synthetic corpus
# (sentences over 300 words drawn with Zipf-like frequencies, as real text is), since nothing downloads;
# build_dict uses min_word_freq=0 on it. save_program_desc opens its files in binary mode (the
# serialized desc is bytes; Fluid's text mode fails under Python 3).
import io
import math
import os
import sys
import tarfile
import tempfile

import numpy as np
import paddle
import paddle.fluid as fluid
import paddle.fluid.framework as framework


def write_corpus():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(300)]
    weights = 1.0 / np.arange(1, 301) ** 1.2
    lines = [" ".join(rng.choice(words, size=12, p=weights / weights.sum())) for _ in range(400)]
    text = ("\n".join(lines) + "\n").encode()
    folder = os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset", "imikolov")
    os.makedirs(folder, exist_ok=True)
    with tarfile.open(os.path.join(folder, "simple-examples.tgz"), "w:gz") as tf:
        for name in ("./simple-examples/data/ptb.train.txt", "./simple-examples/data/ptb.valid.txt"):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tf.addfile(info, io.BytesIO(text))


def save_program_desc(dir):
    startup_program = framework.default_startup_program()
    train_program = framework.default_main_program()
    with open(os.path.join(dir, "startup_program"), "wb") as f:
        f.write(startup_program.desc.serialize_to_string())
    with open(os.path.join(dir, "main_program"), "wb") as f:
        f.write(train_program.desc.serialize_to_string())


def train(use_cuda, is_sparse, save_dirname):
    PASS_NUM, EMBED_SIZE, HIDDEN_SIZE, N, BATCH_SIZE = 100, 32, 256, 5, 32

    def __network__(words):
        embeds = [
            fluid.layers.embedding(
                input=w, size=[dict_size, EMBED_SIZE], dtype="float32", is_sparse=is_sparse, param_attr="shared_w"
            )
            for w in words[:4]
        ]
        concat_embed = fluid.layers.concat(input=embeds, axis=1)
        hidden1 = fluid.layers.fc(input=concat_embed, size=HIDDEN_SIZE, act="sigmoid")
        predict_word = fluid.layers.fc(input=hidden1, size=dict_size, act="softmax")
        cost = fluid.layers.cross_entropy(input=predict_word, label=words[4])
        avg_cost = fluid.layers.mean(cost)
        return avg_cost, predict_word

    word_dict = paddle.dataset.imikolov.build_dict(0)
    dict_size = len(word_dict)
    first_word = fluid.layers.data(name="firstw", shape=[1], dtype="int64")
    second_word = fluid.layers.data(name="secondw", shape=[1], dtype="int64")
    third_word = fluid.layers.data(name="thirdw", shape=[1], dtype="int64")
    forth_word = fluid.layers.data(name="forthw", shape=[1], dtype="int64")
    next_word = fluid.layers.data(name="nextw", shape=[1], dtype="int64")
    avg_cost, predict_word = __network__([first_word, second_word, third_word, forth_word, next_word])
    sgd_optimizer = fluid.optimizer.SGD(learning_rate=0.001)
    sgd_optimizer.minimize(avg_cost)
    train_reader = paddle.batch(paddle.dataset.imikolov.train(word_dict, N), BATCH_SIZE)
    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = fluid.Executor(place)
    feeder = fluid.DataFeeder(feed_list=[first_word, second_word, third_word, forth_word, next_word], place=place)

    exe.run(fluid.default_startup_program())
    for pass_id in range(PASS_NUM):
        for data in train_reader():
            avg_cost_np = exe.run(fluid.default_main_program(), feed=feeder.feed(data), fetch_list=[avg_cost])
            if avg_cost_np[0] < 5.0:
                if save_dirname is not None:
                    fluid.io.save_inference_model(
                        save_dirname,
                        ["firstw", "secondw", "thirdw", "forthw"],
                        [predict_word],
                        exe,
                        params_filename="param",
                    )
                    save_program_desc(save_dirname)
                return
            if math.isnan(float(avg_cost_np[0])):
                sys.exit("got NaN loss, training failed.")
    raise AssertionError("Cost is too large {0:2.2}".format(avg_cost_np[0]))


def infer(use_cuda, save_dirname=None):
    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = fluid.Executor(place)
    inference_scope = fluid.core.Scope()
    with fluid.scope_guard(inference_scope):
        inference_program, feed_target_names, fetch_targets = fluid.io.load_inference_model(
            save_dirname, exe, params_filename="param"
        )
        dict_size = len(paddle.dataset.imikolov.build_dict(0))
        recursive_seq_lens, base_shape = [[1]], [1]
        words = [
            fluid.create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low=0, high=dict_size - 1)
            for _ in range(4)
        ]
        assert feed_target_names == ["firstw", "secondw", "thirdw", "forthw"], feed_target_names
        results = exe.run(
            inference_program, feed=dict(zip(feed_target_names, words)), fetch_list=fetch_targets, return_numpy=False
        )
        print(results[0].recursive_sequence_lengths())
        np_data = np.array(results[0])
        assert np_data.shape == (1, dict_size), np_data.shape
        print("Inference Shape: ", np_data.shape)


write_corpus()
with tempfile.TemporaryDirectory() as temp_dir:
    save_dirname = os.path.join(temp_dir, "word2vec.inference.model")
    prog, startup_prog, scope = fluid.Program(), fluid.Program(), fluid.core.Scope()
    with fluid.scope_guard(scope), fluid.program_guard(prog, startup_prog):
        train(False, True, save_dirname)
        infer(False, save_dirname)
        assert os.path.getsize(os.path.join(save_dirname, "main_program")) > 0
print("ok")
