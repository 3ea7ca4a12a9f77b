# after: PaddlePaddle/Paddle python/paddle/fluid/tests/book/test_recommender_system.py @ 01b033fff4fb4803de4d13e5837738f28d22711a
# Re-written for pe (the same model and facts, in their Fluid 1.8 form: fluid.layers.data/fc/concat/
# cos_sim/scale/square_error_cost/mean/sequence_pool, nets.sequence_conv_pool), run with `pe fluid`.
# The local data reader: Paddle's cache archive ~/.cache/paddle/dataset/movielens/ml-1m.zip is written
# first with 60 synthetic users, 40 movies and 4,000 ratings (user and movie biases plus noise), since
# nothing downloads; paddle.dataset.movielens reads it as Paddle's reader does.
import math
import os
import sys
import tempfile
import zipfile

import numpy as np
import paddle
import paddle.fluid as fluid
import paddle.fluid.framework as framework
import paddle.fluid.layers as layers
import paddle.fluid.nets as nets
from paddle.fluid.executor import Executor
from paddle.fluid.optimizer import SGDOptimizer

IS_SPARSE = True
BATCH_SIZE = 256


def write_movielens():
    rng = np.random.default_rng(0)
    genres = ["Action", "Comedy", "Drama", "Horror", "Romance"]
    words = ["story", "night", "city", "love", "dark", "return", "last", "king", "road", "star"]
    movies = [
        f"{m}::{' '.join(rng.choice(words, size=rng.integers(1, 4)))} ({1980 + m % 20})::"
        f"{'|'.join(sorted(set(rng.choice(genres, size=rng.integers(1, 3)))))}"
        for m in range(1, 41)
    ]
    users = [f"{u}::{'MF'[u % 2]}::{[1, 18, 25, 35, 45, 50, 56][u % 7]}::{u % 21}::00000" for u in range(1, 61)]
    ub, mb = rng.normal(0, 0.8, size=61), rng.normal(0, 0.8, size=41)
    ratings = []
    for _ in range(4000):
        u, m = rng.integers(1, 61), rng.integers(1, 41)
        rating = int(np.clip(np.round(3.6 + ub[u] + mb[m] + rng.normal(0, 0.3)), 1, 5))
        ratings.append(f"{u}::{m}::{rating}::978300760")
    folder = os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset", "movielens")
    os.makedirs(folder, exist_ok=True)
    with zipfile.ZipFile(os.path.join(folder, "ml-1m.zip"), "w") as z:
        for name, lines in (("movies", movies), ("users", users), ("ratings", ratings)):
            z.writestr(f"ml-1m/{name}.dat", ("\n".join(lines) + "\n").encode("latin-1"))


def get_usr_combined_features():
    USR_DICT_SIZE = paddle.dataset.movielens.max_user_id() + 1
    uid = layers.data(name="user_id", shape=[1], dtype="int64")
    usr_emb = layers.embedding(
        input=uid, dtype="float32", size=[USR_DICT_SIZE, 32], param_attr="user_table", is_sparse=IS_SPARSE
    )
    usr_fc = layers.fc(input=usr_emb, size=32)
    usr_gender_id = layers.data(name="gender_id", shape=[1], dtype="int64")
    usr_gender_emb = layers.embedding(input=usr_gender_id, size=[2, 16], param_attr="gender_table", is_sparse=IS_SPARSE)
    usr_gender_fc = layers.fc(input=usr_gender_emb, size=16)
    usr_age_id = layers.data(name="age_id", shape=[1], dtype="int64")
    usr_age_emb = layers.embedding(
        input=usr_age_id,
        size=[len(paddle.dataset.movielens.age_table), 16],
        is_sparse=IS_SPARSE,
        param_attr="age_table",
    )
    usr_age_fc = layers.fc(input=usr_age_emb, size=16)
    usr_job_id = layers.data(name="job_id", shape=[1], dtype="int64")
    usr_job_emb = layers.embedding(
        input=usr_job_id,
        size=[paddle.dataset.movielens.max_job_id() + 1, 16],
        param_attr="job_table",
        is_sparse=IS_SPARSE,
    )
    usr_job_fc = layers.fc(input=usr_job_emb, size=16)
    concat_embed = layers.concat(input=[usr_fc, usr_gender_fc, usr_age_fc, usr_job_fc], axis=1)
    return layers.fc(input=concat_embed, size=200, act="tanh")


def get_mov_combined_features():
    MOV_DICT_SIZE = paddle.dataset.movielens.max_movie_id() + 1
    mov_id = layers.data(name="movie_id", shape=[1], dtype="int64")
    mov_emb = layers.embedding(
        input=mov_id, dtype="float32", size=[MOV_DICT_SIZE, 32], param_attr="movie_table", is_sparse=IS_SPARSE
    )
    mov_fc = layers.fc(input=mov_emb, size=32)
    CATEGORY_DICT_SIZE = len(paddle.dataset.movielens.movie_categories())
    category_id = layers.data(name="category_id", shape=[1], dtype="int64", lod_level=1)
    mov_categories_emb = layers.embedding(input=category_id, size=[CATEGORY_DICT_SIZE, 32], is_sparse=IS_SPARSE)
    mov_categories_hidden = layers.sequence_pool(input=mov_categories_emb, pool_type="sum")
    MOV_TITLE_DICT_SIZE = len(paddle.dataset.movielens.get_movie_title_dict())
    mov_title_id = layers.data(name="movie_title", shape=[1], dtype="int64", lod_level=1)
    mov_title_emb = layers.embedding(input=mov_title_id, size=[MOV_TITLE_DICT_SIZE, 32], is_sparse=IS_SPARSE)
    mov_title_conv = nets.sequence_conv_pool(
        input=mov_title_emb, num_filters=32, filter_size=3, act="tanh", pool_type="sum"
    )
    concat_embed = layers.concat(input=[mov_fc, mov_categories_hidden, mov_title_conv], axis=1)
    return layers.fc(input=concat_embed, size=200, act="tanh")


def model():
    usr_combined_features = get_usr_combined_features()
    mov_combined_features = get_mov_combined_features()
    inference = layers.cos_sim(X=usr_combined_features, Y=mov_combined_features)
    scale_infer = layers.scale(x=inference, scale=5.0)
    label = layers.data(name="score", shape=[1], dtype="float32")
    square_cost = layers.square_error_cost(input=scale_infer, label=label)
    avg_cost = layers.mean(square_cost)
    return scale_infer, avg_cost


def train(use_cuda, save_dirname):
    scale_infer, avg_cost = model()
    test_program = fluid.default_main_program().clone(for_test=True)
    sgd_optimizer = SGDOptimizer(learning_rate=0.2)
    sgd_optimizer.minimize(avg_cost)
    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = Executor(place)
    train_reader = paddle.batch(
        paddle.reader.shuffle(paddle.dataset.movielens.train(), buf_size=8192), batch_size=BATCH_SIZE
    )
    test_reader = paddle.batch(paddle.dataset.movielens.test(), batch_size=BATCH_SIZE)
    feed_order = ["user_id", "gender_id", "age_id", "job_id", "movie_id", "category_id", "movie_title", "score"]
    main_program = fluid.default_main_program()
    exe.run(framework.default_startup_program())
    feed_list = [main_program.global_block().var(var_name) for var_name in feed_order]
    feeder = fluid.DataFeeder(feed_list, place)
    for pass_id in range(100):
        for batch_id, data in enumerate(train_reader()):
            outs = exe.run(program=main_program, feed=feeder.feed(data), fetch_list=[avg_cost])
            out = np.array(outs[0])
            if (batch_id + 1) % 10 == 0:
                avg_cost_set = []
                for test_data in test_reader():
                    avg_cost_np = exe.run(program=test_program, feed=feeder.feed(test_data), fetch_list=[avg_cost])
                    avg_cost_set.append(avg_cost_np[0])
                    break
                test_avg_cost = np.array(avg_cost_set).mean()
                if test_avg_cost < 6.0:
                    fluid.io.save_inference_model(save_dirname, feed_order[:-1], [scale_infer], exe)
                    return
            if math.isnan(float(out[0])):
                sys.exit("got NaN loss, training failed.")
    raise AssertionError("the test cost never fell below 6.0")


def infer(use_cuda, save_dirname):
    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = fluid.Executor(place)
    inference_scope = fluid.core.Scope()
    with fluid.scope_guard(inference_scope):
        inference_program, feed_target_names, fetch_targets = fluid.io.load_inference_model(save_dirname, exe)
        assert feed_target_names[0] == "user_id"
        user_id = fluid.create_lod_tensor([[np.int64(1)]], [[1]], place)
        gender_id = fluid.create_lod_tensor([[np.int64(1)]], [[1]], place)
        age_id = fluid.create_lod_tensor([[np.int64(0)]], [[1]], place)
        job_id = fluid.create_lod_tensor([[np.int64(10)]], [[1]], place)
        movie_id = fluid.create_lod_tensor([[np.int64(31)]], [[1]], place)
        category_id = fluid.create_lod_tensor([np.array([1, 2, 0], dtype="int64")], [[3]], place)
        movie_title = fluid.create_lod_tensor([np.array([3, 1, 4, 2, 5], dtype="int64")], [[5]], place)
        results = exe.run(
            inference_program,
            feed=dict(zip(feed_target_names, [user_id, gender_id, age_id, job_id, movie_id, category_id, movie_title])),
            fetch_list=fetch_targets,
            return_numpy=False,
        )
        score = np.array(results[0])
        assert score.shape == (1, 1) and -5.0 <= score.item() <= 5.0, score
        print("inferred score: ", score)


write_movielens()
with tempfile.TemporaryDirectory() as temp_dir:
    save_dirname = os.path.join(temp_dir, "recommender_system.inference.model")
    train(False, save_dirname)
    infer(False, save_dirname)
print("ok")
