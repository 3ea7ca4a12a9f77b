"""Issue 13's acceptance: a sequence-to-sequence model written the Fluid way, in the shape of Paddle's
book test_machine_translation.py, learns to reverse sequences.

- encoder: LoD source ids -> embedding -> fc -> dynamic_gru -> sequence_last_step (the context; the book's
  encoder is a dynamic_lstm, issue 13 asks for a GRU);
- training decoder: a DynamicRNN over the target words (START + reversed source) whose memory starts at
  the context, which it also reads as a static input at every step; fc + softmax, cross entropy against
  the next words (reversed source + END);
- generation: a While loop over tensor arrays (ids, scores, states) with topk + beam_search, then
  beam_search_decode, sharing the trained parameters by name.

It trains until greedy (beam 1) and beam (3) decoding both reverse >= 90% of held-out sequences."""

import numpy as np

from pe_cli import fluid
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr

START, END, WORDS = 0, 1, 10  # word ids 2..11
VOCAB = WORDS + 2
EMBED, HIDDEN, BATCH = 16, 32, 64
MAX_LEN = 7  # 6 words + END
HELD_OUT = 60


def _encoder():
    src = layers.data("src", [1], dtype="int64", lod_level=1)
    emb = layers.embedding(src, [VOCAB, EMBED], param_attr=ParamAttr("src_emb"))
    proj = layers.fc(emb, 3 * HIDDEN, param_attr=ParamAttr("enc_fc_w"), bias_attr=ParamAttr("enc_fc_b"))
    hidden = layers.dynamic_gru(proj, HIDDEN, param_attr=ParamAttr("enc_gru_w"), bias_attr=ParamAttr("enc_gru_b"))
    return layers.sequence_last_step(hidden)


def _decoder_cell(state, word, context):
    """The decoder's step, the same parameters in training and generation (state first, as the book's
    fc([state, word]), so the new state has the state's LoD, not the word's)."""
    new_state = layers.fc(
        [state, word, context],
        HIDDEN,
        act="tanh",
        bias_attr=ParamAttr("dec_b"),
        param_attr=[ParamAttr("dec_w_state"), ParamAttr("dec_w_word"), ParamAttr("dec_w_ctx")],
    )
    return new_state


def _scores(state):
    return layers.fc(state, VOCAB, act="softmax", param_attr=ParamAttr("out_w"), bias_attr=ParamAttr("out_b"))


def train_program():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup):
        context = _encoder()
        trg = layers.data("trg", [1], dtype="int64", lod_level=1)
        trg_emb = layers.embedding(trg, [VOCAB, EMBED], param_attr=ParamAttr("trg_emb"))
        rnn = layers.DynamicRNN()
        with rnn.block():
            word = rnn.step_input(trg_emb)
            ctx = rnn.static_input(context)
            prev = rnn.memory(init=context, need_reorder=True)  # context in the batch's order (the book's)
            state = _decoder_cell(prev, word, ctx)
            rnn.update_memory(prev, state)
            rnn.output(_scores(state))
        probs = rnn()
        label = layers.data("label", [1], dtype="int64", lod_level=1)
        loss = layers.mean(layers.cross_entropy(probs, label))
        fluid.optimizer.Adam(learning_rate=layers.piecewise_decay([800, 1400], [0.005, 0.002, 0.0005])).minimize(loss)
    return main, startup, loss


def generation_program(beam_size):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        context = _encoder()
        counter = layers.zeros([1], "int64", force_cpu=True)
        limit = layers.fill_constant([1], "int64", MAX_LEN)
        init_ids = layers.data("init_ids", [1], dtype="int64", lod_level=2)
        init_scores = layers.data("init_scores", [1], dtype="float32", lod_level=2)
        states = layers.array_write(context, counter)
        contexts = layers.array_write(context, counter)
        ids = layers.array_write(init_ids, counter)
        scores = layers.array_write(init_scores, counter)
        cond = layers.less_than(counter, limit)
        loop = layers.While(cond)
        with loop.block():
            pre_ids = layers.array_read(ids, counter)
            pre_score = layers.array_read(scores, counter)
            # one row per prefix -> one row per candidate prefix of this step
            pre_state = layers.sequence_expand(layers.array_read(states, counter), pre_score)
            pre_context = layers.sequence_expand(layers.array_read(contexts, counter), pre_score)
            word = layers.embedding(pre_ids, [VOCAB, EMBED], param_attr=ParamAttr("trg_emb"))
            state = _decoder_cell(pre_state, word, pre_context)
            probs = _scores(layers.lod_reset(state, pre_score))
            top_scores, top_ids = layers.topk(probs, k=beam_size)
            accumulated = layers.elementwise_add(layers.log(top_scores), layers.reshape(pre_score, [-1]), axis=0)
            sel_ids, sel_scores = layers.beam_search(
                pre_ids, pre_score, top_ids, accumulated, beam_size, end_id=END, level=0
            )
            layers.increment(counter, 1, in_place=True)
            layers.array_write(state, counter, states)
            layers.array_write(pre_context, counter, contexts)
            layers.array_write(sel_ids, counter, ids)
            layers.array_write(sel_scores, counter, scores)
            running = layers.logical_not(layers.is_empty(sel_ids))
            layers.logical_and(layers.less_than(counter, limit), running, out=cond)
        sentences, sentence_scores = layers.beam_search_decode(ids, scores, beam_size, END)
    return main, sentences, sentence_scores


def _draw(rng, n, avoid=()):
    out = []
    while len(out) < n:
        seq = rng.integers(2, VOCAB, size=int(rng.integers(3, 7)))
        if tuple(seq) not in avoid:
            out.append(seq)
    return out


def _lod(seqs):
    flat = np.concatenate(seqs).reshape(-1, 1).astype("int64")
    return fluid.create_lod_tensor(flat, [[len(s) for s in seqs]], fluid.CPUPlace())


def _train_feed(seqs):
    rev = [s[::-1] for s in seqs]
    return {
        "src": _lod(seqs),
        "trg": _lod([np.concatenate([[START], r]) for r in rev]),
        "label": _lod([np.concatenate([r, [END]]) for r in rev]),
    }


def decode(exe, gen, seqs):
    """Per source, the hypotheses best first: (word ids, scores) lists."""
    main, sentences, sentence_scores = gen
    n, place = len(seqs), fluid.CPUPlace()
    one = [[1] * n, [1] * n]  # each source: one prefix of one word
    feed = {
        "src": _lod(seqs),
        "init_ids": fluid.create_lod_tensor(np.full((n, 1), START, "int64"), one, place),
        "init_scores": fluid.create_lod_tensor(np.zeros((n, 1), "float32"), one, place),
    }
    ids, scores = exe.run(main, feed=feed, fetch_list=[sentences, sentence_scores], return_numpy=False)
    sources, words = ids.lod()
    ids, scores = np.array(ids).reshape(-1), np.array(scores).reshape(-1)
    return [
        [
            (ids[words[h] : words[h + 1]].tolist(), scores[words[h] : words[h + 1]])
            for h in range(sources[s], sources[s + 1])
        ]
        for s in range(n)
    ]


def exact(hypotheses, seqs):
    """The share of sources whose best hypothesis is START, the reversed source, END."""
    return np.mean([bool(h) and h[0][0] == [START] + s[::-1].tolist() + [END] for h, s in zip(hypotheses, seqs)])


def test_seq2seq_learns_to_reverse_and_both_decodings_reproduce_held_out_sequences():
    rng = np.random.default_rng(0)
    held_out = _draw(rng, HELD_OUT)
    avoid = {tuple(s) for s in held_out}
    main, startup, loss = train_program()
    greedy, beam = generation_program(1), generation_program(3)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        first = None
        for step in range(1, 2501):
            (value,) = exe.run(main, feed=_train_feed(_draw(rng, BATCH, avoid)), fetch_list=[loss])
            first = float(np.asarray(value).reshape(-1)[0]) if first is None else first
            if step % 250 == 0 and exact(decode(exe, greedy, held_out), held_out) >= 0.95:  # ~1000 steps
                break
        last = float(np.asarray(value).reshape(-1)[0])
        by_greedy, by_beam = decode(exe, greedy, held_out), decode(exe, beam, held_out)
    assert last < first / 10, (first, last)
    assert exact(by_greedy, held_out) >= 0.9
    assert exact(by_beam, held_out) >= 0.9
    for hyps in by_greedy:
        assert len(hyps) == 1
    for hyps in by_beam:  # up to 3 hypotheses per source, the best first, each from START
        assert 1 <= len(hyps) <= 3
        finals = [scores[-1] for _, scores in hyps]
        assert finals == sorted(finals, reverse=True)
        for words, scores in hyps:
            assert words[0] == START and END not in words[1:-1]
            assert np.all(np.diff(scores) <= 1e-6)  # accumulated log probabilities only fall
