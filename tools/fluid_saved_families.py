"""The small models of tools/fluid_saved_models.py: one per layer family users save. Each builder
takes the ``fluid`` module (Fluid 1.8.5's or pe's) and, inside the caller's program_guard, builds
the forward program and returns {feeds: the inference feed names, targets: the inference outputs,
loss, optimizer: fluid -> an Optimizer (None: inference only), data: {infer, train0, train1: {feed
name: (array, recursive sequence lengths or None)}}}. Layer sizes are tiny: a save is a few KB."""

import numpy as np


def _rng(seed):
    return np.random.RandomState(seed)


def _ids(rng, lengths, vocab):
    return rng.randint(0, vocab, (sum(lengths), 1)).astype("int64"), [list(lengths)]


def _dense(rng, shape):
    return rng.uniform(-1, 1, shape).astype("float32"), None


def _labels(rng, n, classes):
    return rng.randint(0, classes, (n, 1)).astype("int64"), None


def feed_dict(fluid, place, batch):
    """{name: array or LoDTensor} of a batch {name: (array, lengths or None)}."""
    return {n: fluid.create_lod_tensor(a, lod, place) if lod else a for n, (a, lod) in batch.items()}


def _batches(make):
    """infer, train0 and train1 batches, each from its own seed."""
    return {key: make(_rng(seed)) for seed, key in enumerate(("infer", "train0", "train1"))}


def mlp(fluid):
    x = fluid.data("x", [None, 6], "float32")
    label = fluid.data("label", [None, 1], "int64")
    h = fluid.layers.fc(x, 8, act="relu")
    prob = fluid.layers.fc(h, 3, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["x"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.Adam(0.01),
        data=_batches(lambda r: {"x": _dense(r, (4, 6)), "label": _labels(r, 4, 3)}),
    )


def conv(fluid):
    img = fluid.data("img", [None, 2, 6, 6], "float32")
    label = fluid.data("label", [None, 1], "int64")
    c = fluid.layers.conv2d(img, 4, 3, padding=1, act="relu")
    d = fluid.layers.conv2d(c, 4, 3, padding=1, groups=4, use_cudnn=False)  # depthwise_conv2d
    b = fluid.layers.batch_norm(d, act="relu")
    p = fluid.layers.pool2d(b, 2, pool_stride=2, pool_type="max")
    g = fluid.layers.pool2d(p, pool_type="avg", global_pooling=True)
    prob = fluid.layers.fc(g, 3, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["img"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.Momentum(0.05, 0.9),
        data=_batches(lambda r: {"img": _dense(r, (3, 2, 6, 6)), "label": _labels(r, 3, 3)}),
    )


def lod_rnn(fluid):
    words = fluid.data("words", [None, 1], "int64", lod_level=1)
    label = fluid.data("label", [None, 1], "int64")
    emb = fluid.layers.embedding(words, [30, 6])
    h, _ = fluid.layers.dynamic_lstm(fluid.layers.fc(emb, 4 * 5), 4 * 5)
    g = fluid.layers.dynamic_gru(fluid.layers.fc(emb, 3 * 4), 4)
    feat = fluid.layers.concat([fluid.layers.sequence_pool(h, "max"), fluid.layers.sequence_pool(g, "last")], 1)
    prob = fluid.layers.fc(feat, 2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["words"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.Adam(0.01),
        data=_batches(lambda r: {"words": _ids(r, [3, 1, 4], 30), "label": _labels(r, 3, 2)}),
    )


def gru_cell(fluid):
    x = fluid.data("x", [None, 4, 3], "float32")
    label = fluid.data("label", [None, 1], "int64")
    cell = fluid.layers.GRUCell(5)  # its parameters are named GRUCell/BasicGRUUnit_0.w_0 ...
    outs, final = fluid.layers.rnn(cell, x)
    prob = fluid.layers.fc(final, 2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["x"],
        targets=[prob, outs],
        loss=loss,
        optimizer=lambda f: f.optimizer.Adam(0.01),
        data=_batches(lambda r: {"x": _dense(r, (3, 4, 3)), "label": _labels(r, 3, 2)}),
    )


def static_rnn(fluid):
    x = fluid.layers.data("x", [4, 3, 2], dtype="float32", append_batch_size=False)  # [time, batch, features]
    label = fluid.layers.data("label", [3, 1], dtype="int64", append_batch_size=False)
    xp = fluid.layers.fc(x, 3, num_flatten_dims=2)  # (recurrent's gradient needs one for its input)
    rnn = fluid.layers.StaticRNN()
    with rnn.step():
        step = rnn.step_input(xp)
        prev = rnn.memory(shape=[-1, 5], batch_ref=step)
        h = fluid.layers.fc([step, prev], 5, act="tanh")
        rnn.update_memory(prev, h)
        rnn.step_output(h)
    out = rnn()
    prob = fluid.layers.fc(fluid.layers.reduce_mean(out, dim=0), 2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["x"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.SGD(0.1),
        data=_batches(lambda r: {"x": _dense(r, (4, 3, 2)), "label": _labels(r, 3, 2)}),
    )


def dynamic_rnn(fluid):
    words = fluid.data("words", [None, 1], "int64", lod_level=1)
    label = fluid.data("label", [None, 1], "int64")
    emb = fluid.layers.embedding(words, [20, 4])
    drnn = fluid.layers.DynamicRNN()
    with drnn.block():
        w = drnn.step_input(emb)
        prev = drnn.memory(shape=[5], value=0.0)
        h = fluid.layers.fc([w, prev], 5, act="tanh")
        drnn.update_memory(prev, h)
        drnn.output(h)
    last = fluid.layers.sequence_last_step(drnn())
    prob = fluid.layers.fc(last, 2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["words"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.SGD(0.1),
        data=_batches(lambda r: {"words": _ids(r, [2, 3, 1], 20), "label": _labels(r, 3, 2)}),
    )


def attention(fluid):
    x = fluid.data("x", [None, 4, 6], "float32")
    label = fluid.data("label", [None, 1], "int64")
    q, v = fluid.layers.fc(x, 6, num_flatten_dims=2), fluid.layers.fc(x, 6, num_flatten_dims=2)
    k = fluid.layers.fc(x, 6, num_flatten_dims=2, bias_attr=False)  # (softmax over keys ignores a key bias:
    # its gradient is rounding noise, which Adam would scale up to full steps)
    weights = fluid.layers.softmax(fluid.layers.matmul(q, k, transpose_y=True, alpha=6**-0.5))
    ctx = fluid.layers.matmul(weights, v)
    prob = fluid.layers.fc(fluid.layers.reduce_mean(ctx, dim=1), 2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["x"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.Adam(0.01),
        data=_batches(lambda r: {"x": _dense(r, (2, 4, 6)), "label": _labels(r, 2, 2)}),
    )


def ctr(fluid):
    dense = fluid.data("dense", [None, 3], "float32")
    slots = [fluid.data(f"c{i}", [None, 1], "int64", lod_level=1) for i in range(2)]
    label = fluid.data("label", [None, 1], "int64")
    embs = [fluid.layers.sequence_pool(fluid.layers.embedding(s, [40, 4], is_sparse=True), "sum") for s in slots]
    h = fluid.layers.fc(fluid.layers.concat(embs + [dense], 1), 6, act="relu")
    prob = fluid.layers.fc(h, 2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    fluid.layers.auc(prob, label, num_thresholds=31)  # its persistable int64 state is saved too
    return dict(
        feeds=["dense", "c0", "c1"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.SGD(0.1),
        data=_batches(
            lambda r: {
                "dense": _dense(r, (3, 3)),
                "c0": _ids(r, [2, 1, 3], 40),
                "c1": _ids(r, [1, 2, 2], 40),
                "label": _labels(r, 3, 2),
            }
        ),
    )


def while_loop(fluid):
    x = fluid.data("x", [None, 4], "float32")
    label = fluid.data("label", [None, 1], "int64")
    i = fluid.layers.fill_constant([1], "int64", 0)
    n = fluid.layers.fill_constant([1], "int64", 3)
    h = fluid.layers.fc(x, 4, act="tanh")

    def body(i, h):
        h = fluid.layers.fc(
            h, 4, act="tanh", param_attr=fluid.ParamAttr(name="loop_w"), bias_attr=fluid.ParamAttr(name="loop_b")
        )
        return [fluid.layers.increment(i), h]

    _, h = fluid.layers.while_loop(lambda i, h: fluid.layers.less_than(i, n), body, [i, h])
    prob = fluid.layers.fc(h, 2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["x"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.SGD(0.1),
        data=_batches(lambda r: {"x": _dense(r, (3, 4)), "label": _labels(r, 3, 2)}),
    )


def beam_search(fluid):
    """The book's machine-translation decoder: a While loop of tensor arrays and beam_search."""
    pd, beam, vocab, end_id = fluid.layers, 2, 8, 1
    src = fluid.data("src", [None, 1], "int64", lod_level=1)
    context = pd.fc(pd.sequence_pool(pd.embedding(src, [vocab, 4], param_attr="src_emb"), "sum"), 5, act="tanh")
    init_ids = pd.data("init_ids", [1], dtype="int64", lod_level=2)
    init_scores = pd.data("init_scores", [1], dtype="float32", lod_level=2)
    array_len = pd.fill_constant([1], "int64", 3)
    counter = pd.zeros([1], "int64", force_cpu=True)
    state_array, ids_array, scores_array = (
        pd.create_array("float32"),
        pd.create_array("int64"),
        pd.create_array("float32"),
    )
    pd.array_write(context, array=state_array, i=counter)
    pd.array_write(init_ids, array=ids_array, i=counter)
    pd.array_write(init_scores, array=scores_array, i=counter)
    cond = pd.less_than(counter, array_len)
    loop = pd.While(cond)
    with loop.block():
        pre_ids = pd.array_read(ids_array, counter)
        pre_state = pd.array_read(state_array, counter)
        pre_score = pd.array_read(scores_array, counter)
        state = pd.sequence_expand(pre_state, pre_score)
        emb = pd.embedding(pre_ids, [vocab, 4], param_attr="trg_emb")
        current = pd.fc([state, emb], 5, act="tanh")
        current_lod = pd.lod_reset(current, pre_score)
        score = pd.fc(current_lod, vocab, act="softmax")
        top_scores, top_ids = pd.topk(score, k=beam)
        accu = pd.elementwise_add(pd.log(top_scores), pd.reshape(pre_score, [-1]), axis=0)
        sel_ids, sel_scores = pd.beam_search(pre_ids, pre_score, top_ids, accu, beam, end_id=end_id, level=0)
        pd.increment(counter, 1, in_place=True)
        pd.array_write(current, array=state_array, i=counter)
        pd.array_write(sel_ids, array=ids_array, i=counter)
        pd.array_write(sel_scores, array=scores_array, i=counter)
        pd.logical_and(pd.less_than(counter, array_len), pd.logical_not(pd.is_empty(sel_ids)), out=cond)
    ids, scores = pd.beam_search_decode(ids_array, scores_array, beam, end_id)

    def batch(r):
        return {
            "src": _ids(r, [2, 3], vocab),
            "init_ids": (np.zeros((2, 1), "int64"), [[1, 1], [1, 1]]),
            "init_scores": (np.ones((2, 1), "float32"), [[1, 1], [1, 1]]),
        }

    return dict(
        feeds=["src", "init_ids", "init_scores"],
        targets=[ids, scores],
        loss=None,
        optimizer=None,
        data={"infer": batch(_rng(0))},
    )


def interpolation(fluid):
    img = fluid.data("img", [None, 2, 4, 4], "float32")
    label = fluid.data("label", [None, 1], "int64")
    up = fluid.layers.resize_bilinear(img, out_shape=[8, 8])
    c = fluid.layers.conv2d(up, 3, 3, act="relu")
    down = fluid.layers.resize_nearest(c, scale=0.5)
    prob = fluid.layers.fc(down, 2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["img"],
        targets=[prob, up],
        loss=loss,
        optimizer=lambda f: f.optimizer.SGD(0.1),
        data=_batches(lambda r: {"img": _dense(r, (2, 2, 4, 4)), "label": _labels(r, 2, 2)}),
    )


def crf(fluid):
    words = fluid.data("words", [None, 1], "int64", lod_level=1)
    tags = fluid.data("tags", [None, 1], "int64", lod_level=1)
    emission = fluid.layers.fc(fluid.layers.embedding(words, [20, 5]), 4)
    cost = fluid.layers.linear_chain_crf(emission, tags, param_attr=fluid.ParamAttr(name="crfw"))
    decoded = fluid.layers.crf_decoding(emission, param_attr=fluid.ParamAttr(name="crfw"))
    loss = fluid.layers.mean(cost)

    def batch(r):
        words, lod = _ids(r, [3, 2], 20)
        return {"words": (words, lod), "tags": (r.randint(0, 4, words.shape).astype("int64"), lod)}

    return dict(
        feeds=["words"], targets=[decoded], loss=loss, optimizer=lambda f: f.optimizer.SGD(0.1), data=_batches(batch)
    )


def layer_norm(fluid):
    x = fluid.data("x", [None, 6], "float32")
    label = fluid.data("label", [None, 1], "int64")
    h = fluid.layers.layer_norm(fluid.layers.fc(x, 8), epsilon=1e-3, act="relu")
    prob = fluid.layers.fc(h, 3, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
    return dict(
        feeds=["x"],
        targets=[prob],
        loss=loss,
        optimizer=lambda f: f.optimizer.Adam(0.01),
        data=_batches(lambda r: {"x": _dense(r, (4, 6)), "label": _labels(r, 4, 3)}),
    )


FAMILIES = {
    f.__name__: f
    for f in (
        mlp,
        conv,
        lod_rnn,
        gru_cell,
        static_rnn,
        dynamic_rnn,
        attention,
        ctr,
        while_loop,
        beam_search,
        interpolation,
        crf,
        layer_norm,
    )
}
