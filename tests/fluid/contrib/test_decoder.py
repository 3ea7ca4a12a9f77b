"""fluid.contrib.decoder: a TrainingDecoder's outputs equal the StateCell's recurrence in numpy,
and a BeamSearchDecoder of beam 1 decodes what a greedy numpy decoder with the same parameters
does (ids up to the end id, accumulated log-probabilities)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid import layers
from pe_cli.fluid.contrib.decoder import BeamSearchDecoder, InitState, StateCell, TrainingDecoder

D, H, V, END = 4, 5, 6, 1
PLACE = fluid.CPUPlace()


def _cell(ctx):
    cell = StateCell(inputs={"x": None}, states={"h": InitState(init=ctx, need_reorder=True)}, out_state="h")

    @cell.state_updater
    def update(c):
        c.set_state(
            "h",
            layers.fc(
                [c.get_input("x"), c.get_state("h")],
                H,
                act="tanh",
                param_attr=[fluid.ParamAttr(name="dx"), fluid.ParamAttr(name="dh")],
                bias_attr=fluid.ParamAttr(name="db"),
            ),
        )

    return cell


def _params(scope, names):
    return {n: np.array(scope.find_var(n).get_tensor()).astype(np.float64) for n in names}


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def test_training_decoder_runs_the_state_cell_over_each_sequence():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        ctx = layers.data("ctx", [H], dtype="float32")
        trg = layers.data("trg", [D], dtype="float32", lod_level=1)
        decoder = TrainingDecoder(_cell(ctx))
        with decoder.block():
            word = decoder.step_input(trg)
            decoder.state_cell.compute_state(inputs={"x": word})
            decoder.state_cell.update_states()
            decoder.output(decoder.state_cell.get_state("h"))
        out = decoder()
    exe, scope = fluid.Executor(PLACE), fluid.Scope()
    exe.run(start, scope=scope)
    rng = np.random.default_rng(2)
    c, x = rng.normal(size=(2, H)).astype("float32"), rng.normal(size=(5, D)).astype("float32")
    (got,) = exe.run(
        main, feed={"ctx": c, "trg": fluid.create_lod_tensor(x, [[3, 2]], PLACE)}, fetch_list=[out], scope=scope
    )
    p = _params(scope, ["dx", "dh", "db"])
    want = []
    for seq, rows in enumerate([range(0, 3), range(3, 5)]):
        h = c[seq].astype(np.float64)
        for r in rows:
            h = np.tanh(x[r] @ p["dx"] + h @ p["dh"] + p["db"])
            want.append(h)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="inside block"):
        decoder.output(out)


def _greedy(p, emb, out_w, out_b, h, max_len):
    ids, score, word = [0], 0.0, 0
    for _ in range(max_len):
        h = np.tanh(emb[word] @ p["dx"] + h @ p["dh"] + p["db"])
        probs = _softmax(h @ out_w + out_b)
        word = int(np.argmax(probs))
        score += np.log(probs[word])
        ids.append(word)
        if word == END:
            break
    return ids, score


def test_beam_search_decoder_of_beam_one_is_greedy_decoding():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        ctx = layers.data("ctx", [H], dtype="float32")
        init_ids = layers.data("init_ids", [1], dtype="int64", lod_level=2)
        init_scores = layers.data("init_scores", [1], dtype="float32", lod_level=2)
        decoder = BeamSearchDecoder(
            _cell(ctx), init_ids, init_scores, V, D, topk_size=3, sparse_emb=False, max_len=4, beam_size=1, end_id=END
        )
        decoder.decode()
        ids, scores = decoder()
    exe, scope = fluid.Executor(PLACE), fluid.Scope()
    exe.run(start, scope=scope)
    c = np.random.default_rng(3).normal(size=(2, H)).astype("float32")
    lod = [[1, 1], [1, 1]]
    got_ids, got_scores = exe.run(
        main,
        scope=scope,
        return_numpy=False,
        fetch_list=[ids, scores],
        feed={
            "ctx": c,
            "init_ids": fluid.create_lod_tensor(np.zeros((2, 1), "int64"), lod, PLACE),
            "init_scores": fluid.create_lod_tensor(np.zeros((2, 1), "float32"), lod, PLACE),
        },
    )
    names = [v.name for v in main.global_block().all_parameters()]
    emb = [n for n in names if n.startswith("embedding")][0]
    fc_w, fc_b = [n for n in names if n.startswith("fc_") and n.endswith(".w_0")][0], None
    fc_b = fc_w.replace(".w_0", ".b_0")
    p = _params(scope, ["dx", "dh", "db", emb, fc_w, fc_b])
    offsets = got_ids.lod()[1]
    flat_ids, flat_scores = np.array(got_ids).ravel(), np.array(got_scores).ravel()
    for source in range(2):
        want_ids, want_score = _greedy(p, p[emb], p[fc_w], p[fc_b], c[source].astype(np.float64), 4)
        sentence = slice(offsets[source], offsets[source + 1])
        assert flat_ids[sentence].tolist() == want_ids, (flat_ids, want_ids)
        assert flat_scores[sentence][-1] == pytest.approx(want_score, rel=1e-4)
