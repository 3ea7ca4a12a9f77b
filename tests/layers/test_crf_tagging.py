"""A semantic-role-labelling-style tagger written the Fluid way (the book's shape: embedding over LoD
word ids -> fc -> linear_chain_crf, crf_decoding + chunk_eval, ChunkEvaluator) learns generated IOB
tag data; 2 CPU devices end where 1 device ends. Plus the CRF, chunk and edit-distance layers'
user-facing contracts: shared transition by name, padded input, ignored tokens, clear errors."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

TYPES, WORDS_PER_TYPE, OUTSIDE_WORDS = 3, 6, 8
VOCAB = TYPES * WORDS_PER_TYPE + OUTSIDE_WORDS
LABELS = 2 * TYPES + 1  # IOB: B-t = 2t, I-t = 2t + 1, O = 2 * TYPES


def make_batch(rng, n):
    """n sentences of chunks (1-3 words of one type's words) between 'outside' words. A word says
    its chunk's type but not whether it begins the chunk: B vs I must come from the transitions."""
    words, tags, lengths = [], [], []
    for _ in range(n):
        w, t = [], []
        while len(w) < 6 or rng.random() < 0.5:
            for _ in range(int(rng.integers(1, 3))):
                w.append(TYPES * WORDS_PER_TYPE + int(rng.integers(OUTSIDE_WORDS)))
                t.append(2 * TYPES)
            typ = int(rng.integers(TYPES))
            for k in range(int(rng.integers(1, 4))):
                w.append(typ * WORDS_PER_TYPE + int(rng.integers(WORDS_PER_TYPE)))
                t.append(2 * typ + (k > 0))
        words += w
        tags += t
        lengths.append(len(w))
    place = fluid.CPUPlace()
    return {
        "word": fluid.create_lod_tensor(np.array(words, "int64").reshape(-1, 1), [lengths], place),
        "target": fluid.create_lod_tensor(np.array(tags, "int64").reshape(-1, 1), [lengths], place),
    }


def build(seed=3):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup):
        word = fluid.layers.data("word", shape=[1], dtype="int64", lod_level=1)
        target = fluid.layers.data("target", shape=[1], dtype="int64", lod_level=1)
        emb = fluid.layers.embedding(word, size=[VOCAB, 16])
        hidden = fluid.layers.fc(emb, 32, act="tanh")
        feature = fluid.layers.fc(hidden, LABELS)
        crf_cost = fluid.layers.linear_chain_crf(feature, target, param_attr=fluid.ParamAttr(name="crfw"))
        avg_cost = fluid.layers.mean(crf_cost)
        decoded = fluid.layers.crf_decoding(feature, param_attr=fluid.ParamAttr(name="crfw"))
        chunks = fluid.layers.chunk_eval(decoded, target, chunk_scheme="IOB", num_chunk_types=TYPES)
        test = main.clone(for_test=True)
        fluid.optimizer.Adam(0.05).minimize(avg_cost)
    return main, startup, test, avg_cost, decoded, chunks


def evaluate(exe, program, scope, decoded, chunks, batches):
    metric = fluid.metrics.ChunkEvaluator()
    for feed in batches:
        *_, n_infer, n_label, n_correct = exe.run(program, feed=feed, fetch_list=list(chunks), scope=scope)
        metric.update(n_infer, n_label, n_correct)
    return metric.eval()


def test_srl_style_tagger_learns_chunks():
    main, startup, test, avg_cost, decoded, chunks = build()
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    held_out = [make_batch(rng, 16) for _ in range(2)]
    _, _, f1_before = evaluate(exe, test, scope, decoded, chunks, held_out)
    losses = [
        float(exe.run(main, feed=make_batch(rng, 16), fetch_list=[avg_cost], scope=scope)[0][0]) for _ in range(60)
    ]
    precision, recall, f1 = evaluate(exe, test, scope, decoded, chunks, held_out)
    assert np.mean(losses[-5:]) < 0.2 * np.mean(losses[:5]), losses
    assert f1_before < 0.3 and f1 > 0.9, (f1_before, precision, recall, f1)
    (path,) = exe.run(test, feed=held_out[0], fetch_list=[decoded], scope=scope, return_numpy=False)
    assert path.lod() == held_out[0]["target"].lod()  # one tag per word, the sentences' LoD


def test_two_devices_match_one_on_the_tagger():
    def run(devices):
        main, startup, _, avg_cost, *_ = build(seed=7)
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        program = (
            main
            if devices == 1
            else fluid.CompiledProgram(main).with_data_parallel(
                loss_name=avg_cost.name, places=[fluid.CPUPlace()] * devices
            )
        )
        rng = np.random.default_rng(1)
        for _ in range(4):
            exe.run(program, feed=make_batch(rng, 8), fetch_list=[avg_cost], scope=scope)
        return [(p.name, np.array(scope.find_var(p.name).get_tensor())) for p in main.global_block().all_parameters()]

    one, two = run(1), run(2)
    assert "crfw" in dict(one)
    for (name, a), (_, b) in zip(one, two):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=name)


def test_padded_crf_equals_lod_crf():
    """Fluid 1.6+'s padded form ([B, T, D] with length) costs and decodes as the LoD form does."""
    rng = np.random.default_rng(4)
    lengths, d, t = [3, 1, 4], 4, 5
    x = rng.normal(size=(sum(lengths), d)).astype("float32")
    y = rng.integers(0, d, size=(sum(lengths), 1)).astype("int64")
    xp, yp = np.zeros((3, t, d), "float32"), np.zeros((3, t, 1), "int64")
    for k, (a, n) in enumerate(zip([0, 3, 4], lengths)):
        xp[k, :n], yp[k, :n] = x[a : a + n], y[a : a + n]
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        em = fluid.layers.data("em", shape=[d], dtype="float32", lod_level=1)
        lab = fluid.layers.data("lab", shape=[1], dtype="int64", lod_level=1)
        emp = fluid.data("emp", shape=[None, t, d], dtype="float32")
        labp = fluid.data("labp", shape=[None, t, 1], dtype="int64")
        length = fluid.data("length", shape=[None], dtype="int64")
        cost = fluid.layers.linear_chain_crf(em, lab, param_attr="w")
        costp = fluid.layers.linear_chain_crf(emp, labp, param_attr="w", length=length)
        path = fluid.layers.crf_decoding(em, param_attr="w")
        pathp = fluid.layers.crf_decoding(emp, param_attr="w", length=length)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    place = fluid.CPUPlace()
    c, cp, p, pp = exe.run(
        main,
        feed={
            "em": fluid.create_lod_tensor(x, [lengths], place),
            "lab": fluid.create_lod_tensor(y, [lengths], place),
            "emp": xp,
            "labp": yp,
            "length": np.array(lengths, "int64"),
        },
        fetch_list=[cost, costp, path, pathp],
    )
    np.testing.assert_allclose(cp, c, rtol=1e-6)
    assert pp.shape == (3, t)
    np.testing.assert_array_equal(np.concatenate([pp[k, :n] for k, n in enumerate(lengths)]), p.ravel())


def test_edit_distance_layer_with_ignored_tokens():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        hyp = fluid.layers.data("hyp", shape=[1], dtype="int64", lod_level=1)
        ref = fluid.layers.data("ref", shape=[1], dtype="int64", lod_level=1)
        dist, num = fluid.layers.edit_distance(hyp, ref, normalized=False, ignored_tokens=[0])
        ndist, _ = fluid.layers.edit_distance(hyp, ref)
    place = fluid.CPUPlace()
    # "kitten" -> "sitting" is 3; the 0s are padding tokens to ignore; "ab" -> "ab" is 0
    h = [0, 11, 9, 20, 20, 5, 14, 0] + [1, 2]
    r = [19, 9, 20, 20, 9, 14, 7] + [1, 0, 2]
    feed = {
        "hyp": fluid.create_lod_tensor(np.array(h, "int64").reshape(-1, 1), [[8, 2]], place),
        "ref": fluid.create_lod_tensor(np.array(r, "int64").reshape(-1, 1), [[7, 3]], place),
    }
    d, n, nd = fluid.Executor(place).run(main, feed=feed, fetch_list=[dist, num, ndist])
    np.testing.assert_array_equal(d, [[3.0], [0.0]])
    assert n.tolist() == [2] and d.dtype == np.float32
    np.testing.assert_allclose(nd, [[4 / 7], [1 / 3]], rtol=1e-6)  # not ignoring: 0kitten0 -> sitting is 4
    metric = fluid.metrics.EditDistance()
    metric.update(d, int(n[0]))
    assert metric.eval() == pytest.approx((1.5, 0.5))


def _crf_program(em_shape, lod_level=1, label_dtype="int64"):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        em = fluid.layers.data("em", shape=em_shape, dtype="float32", lod_level=lod_level)
        lab = fluid.layers.data("lab", shape=[1], dtype=label_dtype, lod_level=lod_level)
        fluid.layers.linear_chain_crf(em, lab)
    return main, startup


def test_bad_input_is_one_clear_error():
    # Fluid builds a plain (lod_level 0) emission, its kernel wants the LoD when it runs; its layer refuses
    # a float label (TypeError)
    main, startup = _crf_program([4], lod_level=0)
    fluid.Executor(fluid.CPUPlace()).run(startup)
    with pytest.raises(PeError, match="no LoD"):
        fluid.Executor(fluid.CPUPlace()).run(
            main,
            feed={"em": np.zeros((3, 4), "float32"), "lab": np.zeros((3, 1), "int64")},
            fetch_list=[main.global_block().ops[-1].output("LogLikelihood")[0]],
        )
    with pytest.raises(TypeError, match="label.*int64"):
        _crf_program([4], label_dtype="float32")
    with pytest.raises(PeError, match="crf_decoding.*'nope'.*not a parameter"):
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            em = fluid.layers.data("em", shape=[4], dtype="float32", lod_level=1)
            fluid.layers.crf_decoding(em, param_attr=fluid.ParamAttr(name="nope"))
    main, startup = _crf_program([4])
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    place = fluid.CPUPlace()
    feed = {
        "em": fluid.create_lod_tensor(np.zeros((3, 4), "float32"), [[3]], place),
        "lab": fluid.create_lod_tensor(np.array([[0], [4], [1]], "int64"), [[3]], place),
    }
    with pytest.raises(PeError, match=r"tag ids outside \[0, 4\)"):
        exe.run(main, feed=feed, fetch_list=[main.global_block().ops[-1].output("LogLikelihood")[0]])
