"""The seq2seq rows (bench_models.py's ``seq2seq`` and ``beam``; fluid_programs.py's too): a translation
model with attention, the shape of PaddlePaddle/book's 08.machine_translation, written once against
Fluid 1.8's API (run by Fluid 1.8.5 and by pe) and once in PyTorch, from the same weights and batches.

  source: 64 sequences of 10-40 ids (a LoD batch) from a 10,000-word vocabulary -> embedding 256 ->
          fc to the 4 gates -> dynamic_lstm (hidden 256): the encoder's outputs, padded to 40 steps
          (sequence_pad), and its last step -> fc 256 tanh: the decoder's first state (its cell: 0)
  decoder (teacher forcing): the target's 10-40 ids, padded to 40 ([64, 40]) -> embedding 256 -> an
          LSTMCell (hidden 256) run by layers.rnn over the 40 steps; each step's input is the word's
          embedding and the attention context: additive attention, v' tanh(W_e e_s + W_d h), softmax
          over the source's steps (the padding at -1e9), the encoder outputs' weighted sum
  loss:   fc 256 -> 10,000 over every step, softmax cross-entropy masked to the target's length,
          summed over the batch's words / their number; momentum SGD (lr 0.01, 0.9)
  beam:   the same encoder and cell decoding the sources with BeamSearchDecoder (beam 4, start id 0,
          end id 1) + dynamic_decode, 40 steps at most; the result is the best beams' log-probabilities

PyTorch: nn.LSTM over the packed sources, nn.LSTMCell in a loop over the 40 steps (attention with
bmm), a batched beam search doing what Fluid's BeamSearchDecoder does (a finished beam only extends
with the end id at no cost; its state is kept). The LSTMs' gates are reordered between the layouts
(dynamic_lstm: c, i, f, o; LSTMCell: i, j, f, o with forget_bias 1.0 added; PyTorch: i, f, g, o).
Written for Python 3.8 and numpy 1.23 too (fluid_programs.py runs it under Fluid 1.8.5).
"""

VOCAB, EMB, HIDDEN, BATCH, LENGTHS, MAX_LEN, BEAM, START, END = 10000, 256, 256, 64, (10, 40), 40, 4, 0, 1
LR, MU = 0.01, 0.9


def params():
    """[(Fluid's parameter name, shape, fan-in)]: each starts uniform in +-1/sqrt(fan-in)."""
    return [
        ("src_emb", (VOCAB, EMB), EMB),
        ("enc.proj.w", (EMB, 4 * HIDDEN), HIDDEN),
        ("enc.proj.b", (4 * HIDDEN,), HIDDEN),
        ("enc.lstm.w", (HIDDEN, 4 * HIDDEN), HIDDEN),
        ("enc.lstm.b", (1, 4 * HIDDEN), HIDDEN),
        ("init.w", (HIDDEN, HIDDEN), HIDDEN),
        ("init.b", (HIDDEN,), HIDDEN),
        ("att.enc.w", (HIDDEN, HIDDEN), HIDDEN),
        ("att.dec.w", (HIDDEN, HIDDEN), HIDDEN),
        ("att.v.w", (HIDDEN, 1), HIDDEN),
        ("trg_emb", (VOCAB, EMB), EMB),
        ("dec.w", (EMB + 2 * HIDDEN, 4 * HIDDEN), HIDDEN),
        ("dec.b", (4 * HIDDEN,), HIDDEN),
        ("out.w", (HIDDEN, VOCAB), HIDDEN),
        ("out.b", (VOCAB,), HIDDEN),
    ]


def weights(seed=0):
    """{name: float32 array} for every parameter of params()."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return dict((name, rng.uniform(-(fan**-0.5), fan**-0.5, shape).astype("float32")) for name, shape, fan in params())


def batch_of(seed=1):
    """{"src": ids, "src_len", "trg": [BATCH, MAX_LEN] padded with END, "label": the next words, "trg_len"}."""
    import numpy as np

    rng = np.random.default_rng(seed)
    src_len = rng.integers(LENGTHS[0], LENGTHS[1] + 1, BATCH)
    trg_len = rng.integers(LENGTHS[0], LENGTHS[1] + 1, BATCH)
    src = rng.integers(2, VOCAB, int(src_len.sum())).astype("int64")
    words = rng.integers(2, VOCAB, (BATCH, MAX_LEN + 1)).astype("int64")
    words[:, 0] = START
    for i, n in enumerate(trg_len):
        words[i, n:] = END  # the word after the last is the end id; past it, padding
    return {
        "src": src,
        "src_len": src_len.astype("int64"),
        "trg": words[:, :-1].copy(),
        "label": words[:, 1:].copy(),
        "trg_len": trg_len.astype("int64"),
    }


def flops(batch, decode=False):
    """Multiply-adds x 2 of the training forward (bench_models.model_flops's list form), or of the
    decoding (its 41 steps over the batch's beams; the encoder's share counted once)."""
    rows = batch * (BEAM * (MAX_LEN + 1) if decode else MAX_LEN)
    encoder = [
        2 * batch * MAX_LEN * EMB * 4 * HIDDEN,
        2 * batch * MAX_LEN * HIDDEN * 4 * HIDDEN,
        2 * batch * MAX_LEN * HIDDEN * HIDDEN,
    ]
    return encoder + [
        2 * rows * (HIDDEN + 2 * MAX_LEN * HIDDEN),
        2 * rows * (EMB + 2 * HIDDEN) * 4 * HIDDEN,
        2 * rows * HIDDEN * VOCAB,
    ]


# -- the Fluid 1.8 program (pe and Fluid 1.8.5) --------------------------------------------------------


def _attr(fluid, name):
    return fluid.ParamAttr(name=name)


def _encoder(fluid):
    """(feeds, encoder outputs [B, T, H], their attention projection, the padding's -1e9 mask [B, T],
    the decoder's initial states [[h, c]])."""
    layers = fluid.layers
    src = layers.data("src", [1], dtype="int64", lod_level=1)
    emb = layers.embedding(src, [VOCAB, EMB], param_attr=_attr(fluid, "src_emb"))
    gates = layers.fc(emb, 4 * HIDDEN, param_attr=_attr(fluid, "enc.proj.w"), bias_attr=_attr(fluid, "enc.proj.b"))
    hidden, _ = layers.dynamic_lstm(
        gates,
        4 * HIDDEN,
        use_peepholes=False,
        param_attr=_attr(fluid, "enc.lstm.w"),
        bias_attr=_attr(fluid, "enc.lstm.b"),
    )
    zero = layers.fill_constant([1], "float32", 0.0)
    enc_out, src_len = layers.sequence_pad(hidden, zero, maxlen=MAX_LEN)
    enc_proj = layers.fc(enc_out, HIDDEN, num_flatten_dims=2, param_attr=_attr(fluid, "att.enc.w"), bias_attr=False)
    mask = layers.sequence_mask(layers.reshape(src_len, [-1]), maxlen=MAX_LEN, dtype="float32")
    mask = layers.scale(mask, 1e9, -1.0, bias_after_scale=False)  # (mask - 1) * 1e9
    h0 = layers.fc(
        layers.sequence_last_step(hidden),
        HIDDEN,
        act="tanh",
        param_attr=_attr(fluid, "init.w"),
        bias_attr=_attr(fluid, "init.b"),
    )
    c0 = layers.fill_constant_batch_size_like(h0, [-1, HIDDEN], "float32", 0.0)
    # the states nested one level ([[h, c]]): Fluid 1.8.5's rnn() loops forever checking a flat list of
    # several states (it iterates over the first state's Variable)
    return [src], enc_out, enc_proj, mask, [[h0, c0]]


def _cell(fluid):
    """The decoder's RNNCell: additive attention over the encoder outputs, then an LSTMCell."""
    layers = fluid.layers

    class AttentionCell(layers.RNNCell):
        def __init__(self):
            self.lstm = layers.LSTMCell(HIDDEN, param_attr=_attr(fluid, "dec.w"), bias_attr=_attr(fluid, "dec.b"))

        def call(self, step_input, states, enc_out, enc_proj, mask):
            h = states[0][0]
            query = layers.unsqueeze(layers.fc(h, HIDDEN, param_attr=_attr(fluid, "att.dec.w"), bias_attr=False), [1])
            mixed = layers.tanh(layers.elementwise_add(enc_proj, layers.expand(query, [1, MAX_LEN, 1])))
            scores = layers.squeeze(
                layers.fc(mixed, 1, num_flatten_dims=2, param_attr=_attr(fluid, "att.v.w"), bias_attr=False), [2]
            )
            weights = layers.softmax(layers.elementwise_add(scores, mask))
            context = layers.reduce_sum(layers.elementwise_mul(enc_out, weights, axis=0), dim=1)
            output, new_states = self.lstm(layers.concat([step_input, context], axis=1), states[0])
            return output, [new_states]

        @property
        def state_shape(self):
            return [[[HIDDEN], [HIDDEN]]]

    return AttentionCell()


def _output(fluid, x):
    return fluid.layers.fc(
        x, VOCAB, num_flatten_dims=len(x.shape) - 1, param_attr=_attr(fluid, "out.w"), bias_attr=_attr(fluid, "out.b")
    )


def _trg_embedding(fluid, ids):
    return fluid.embedding(ids, [VOCAB, EMB], param_attr=_attr(fluid, "trg_emb"))


def train_program(fluid):
    """(feed names, loss) of the training step, built in the current program (optimizer included)."""
    layers = fluid.layers
    feeds, enc_out, enc_proj, mask, inits = _encoder(fluid)
    trg = layers.data("trg", [MAX_LEN], dtype="int64")
    label = layers.data("label", [MAX_LEN], dtype="int64")
    trg_len = layers.data("trg_len", [1], dtype="int64")
    dec_out, _ = layers.rnn(
        _cell(fluid), _trg_embedding(fluid, trg), inits, enc_out=enc_out, enc_proj=enc_proj, mask=mask
    )
    logits = layers.reshape(_output(fluid, dec_out), [-1, VOCAB])
    xent = layers.softmax_with_cross_entropy(logits, layers.reshape(label, [-1, 1]))
    words = layers.reshape(
        layers.sequence_mask(layers.reshape(trg_len, [-1]), maxlen=MAX_LEN, dtype="float32"), [-1, 1]
    )
    loss = layers.elementwise_div(layers.reduce_sum(layers.elementwise_mul(xent, words)), layers.reduce_sum(words))
    fluid.optimizer.Momentum(LR, MU).minimize(loss)
    return [f.name for f in feeds] + ["trg", "label", "trg_len"], loss


def decode_program(fluid):
    """(feed names, [predicted ids [B, T, BEAM], the beams' log-probabilities [B, BEAM]]) of the decoding."""
    layers = fluid.layers
    feeds, enc_out, enc_proj, mask, inits = _encoder(fluid)
    tile = layers.BeamSearchDecoder.tile_beam_merge_with_batch
    decoder = layers.BeamSearchDecoder(
        _cell(fluid),
        START,
        END,
        BEAM,
        embedding_fn=lambda ids: _trg_embedding(fluid, ids),
        output_fn=lambda x: _output(fluid, x),
    )
    ids, states = layers.dynamic_decode(
        decoder,
        inits,
        max_step_num=MAX_LEN,
        enc_out=tile(enc_out, BEAM),
        enc_proj=tile(enc_proj, BEAM),
        mask=tile(mask, BEAM),
    )
    return [f.name for f in feeds], [ids, states.log_probs]


def outputs(fluid, decode):
    """(the loss or None, the fetch list) of the training or decoding program built in the current one."""
    if decode:
        return None, decode_program(fluid)[1]
    loss = train_program(fluid)[1]
    return loss, [loss]


def fluid_feed(fluid, data, decode=False):
    """The feed of ``batch_of``'s data (a LoD tensor for the sources)."""
    feed = {
        "src": fluid.create_lod_tensor(
            data["src"].reshape(-1, 1), [[int(n) for n in data["src_len"]]], fluid.CPUPlace()
        )
    }
    if not decode:
        feed.update(trg=data["trg"], label=data["label"], trg_len=data["trg_len"].reshape(-1, 1))
    return feed


def set_weights(fluid, scope, w):
    for name, value in w.items():
        scope.find_var(name).get_tensor().set(value, fluid.CPUPlace())


def best_scores(log_probs):
    """The result a decoding step reports: the sum over the batch of the best beam's log-probability."""
    return float(log_probs[:, 0].astype("float64").sum())


# -- PyTorch -------------------------------------------------------------------------------------------


def torch_net(torch, w):
    """The model as an nn.Module holding ``w`` (Fluid's layouts turned into PyTorch's)."""
    import numpy as np
    from bench_lstm import torch_gates

    nn = torch.nn
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    lstm_gates, cell_gates = (1, 2, 0, 3), (0, 2, 1, 3)  # dynamic_lstm's c,i,f,o / LSTMCell's i,j,f,o -> i,f,g,o

    def linear(name, bias=None):
        weight = w[name]
        m = nn.Linear(weight.shape[0], weight.shape[1], bias=bias is not None)
        m.weight.data = t(weight.T)
        if bias is not None:
            m.bias.data = t(w[bias])
        return m

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_emb, self.trg_emb = nn.Embedding(VOCAB, EMB), nn.Embedding(VOCAB, EMB)
            self.src_emb.weight.data, self.trg_emb.weight.data = t(w["src_emb"]), t(w["trg_emb"])
            self.enc = nn.LSTM(EMB, HIDDEN, batch_first=True)
            self.enc.weight_ih_l0.data = t(torch_gates(w["enc.proj.w"], lstm_gates).T)
            self.enc.bias_ih_l0.data = t(torch_gates(w["enc.proj.b"], lstm_gates))
            self.enc.weight_hh_l0.data = t(torch_gates(w["enc.lstm.w"], lstm_gates).T)
            self.enc.bias_hh_l0.data = t(torch_gates(w["enc.lstm.b"], lstm_gates).reshape(-1))
            self.init, self.out = linear("init.w", "init.b"), linear("out.w", "out.b")
            self.att_enc, self.att_dec, self.att_v = linear("att.enc.w"), linear("att.dec.w"), linear("att.v.w")
            self.cell = nn.LSTMCell(EMB + HIDDEN, HIDDEN)
            gates = torch_gates(w["dec.w"], cell_gates)
            self.cell.weight_ih.data, self.cell.weight_hh.data = t(gates[: EMB + HIDDEN].T), t(gates[EMB + HIDDEN :].T)
            forget = np.zeros(4 * HIDDEN, np.float32)
            forget[HIDDEN : 2 * HIDDEN] = 1.0  # LSTMCell's forget_bias
            self.cell.bias_ih.data = t(torch_gates(w["dec.b"], cell_gates) + forget)
            self.cell.bias_hh.data = torch.zeros(4 * HIDDEN)

        def encode(self, src, src_len):
            packed = nn.utils.rnn.pack_padded_sequence(
                self.src_emb(src), src_len, batch_first=True, enforce_sorted=False
            )
            out, (h, _) = self.enc(packed)
            enc_out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=MAX_LEN)
            mask = (torch.arange(MAX_LEN)[None, :] < src_len[:, None]).float()
            h0 = torch.tanh(self.init(h[0]))
            return enc_out, self.att_enc(enc_out), (mask - 1.0) * 1e9, (h0, torch.zeros_like(h0))

        def step(self, x, state, enc_out, enc_proj, mask):
            mixed = torch.tanh(enc_proj + self.att_dec(state[0]).unsqueeze(1))
            weights = torch.softmax(self.att_v(mixed).squeeze(2) + mask, dim=1)
            context = torch.bmm(weights.unsqueeze(1), enc_out).squeeze(1)
            return self.cell(torch.cat([x, context], dim=1), state)

        def forward(self, src, src_len, trg):
            enc_out, enc_proj, mask, state = self.encode(src, src_len)
            emb, outs = self.trg_emb(trg), []
            for i in range(MAX_LEN):
                state = self.step(emb[:, i], state, enc_out, enc_proj, mask)
                outs.append(state[0])
            return self.out(torch.stack(outs, dim=1))

    return Net()


def _torch_inputs(torch, data):
    import numpy as np

    src = np.full((BATCH, MAX_LEN), END, np.int64)
    starts = np.concatenate([[0], np.cumsum(data["src_len"])])
    for i, n in enumerate(data["src_len"]):
        src[i, :n] = data["src"][starts[i] : starts[i + 1]]
    return torch.from_numpy(src), torch.from_numpy(data["src_len"])


def torch_train_step(torch, w):
    """A function running one training step of the PyTorch model (momentum SGD), returning the loss."""
    net, data = torch_net(torch, w), batch_of()
    src, src_len = _torch_inputs(torch, data)
    trg, label = torch.from_numpy(data["trg"]), torch.from_numpy(data["label"]).reshape(-1)
    words = (torch.arange(MAX_LEN)[None, :] < torch.from_numpy(data["trg_len"])[:, None]).float().reshape(-1)
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=MU)

    def step():
        opt.zero_grad()
        xent = torch.nn.functional.cross_entropy(net(src, src_len, trg).reshape(-1, VOCAB), label, reduction="none")
        loss = (xent * words).sum() / words.sum()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def torch_decode_step(torch, w):
    """A function decoding the batch's sources as BeamSearchDecoder + dynamic_decode do, returning
    best_scores of the beams' log-probabilities."""
    net, data = torch_net(torch, w), batch_of()
    src, src_len = _torch_inputs(torch, data)
    no_end = torch.full((VOCAB,), -1e9)
    no_end[END] = 0.0

    def tile(x):
        return x.repeat_interleave(BEAM, dim=0)

    @torch.no_grad()
    def step():
        enc_out, enc_proj, mask, state = net.encode(src, src_len)
        enc_out, enc_proj, mask, state = tile(enc_out), tile(enc_proj), tile(mask), tuple(map(tile, state))
        log_probs = torch.tensor([0.0] + [-1e9] * (BEAM - 1)).repeat(BATCH, 1)
        finished = torch.zeros(BATCH, BEAM, dtype=torch.bool)
        ids, tokens, parents = torch.full((BATCH * BEAM,), START, dtype=torch.int64), [], []
        rows = (torch.arange(BATCH) * BEAM)[:, None]
        for _ in range(MAX_LEN + 1):
            state = net.step(net.trg_emb(ids), state, enc_out, enc_proj, mask)
            step_lp = torch.log_softmax(net.out(state[0]), dim=-1).reshape(BATCH, BEAM, VOCAB)
            step_lp = torch.where(finished[..., None], no_end, step_lp)
            scores, top = (step_lp + log_probs[..., None]).reshape(BATCH, -1).topk(BEAM, dim=-1)
            beam, token = top // VOCAB, top % VOCAB
            picked = (rows + beam).reshape(-1)
            state = (state[0][picked], state[1][picked])
            finished = finished.gather(1, beam) | (token == END)
            log_probs, ids = scores, token.reshape(-1)
            tokens.append(token)
            parents.append(beam)
            if bool(finished.all()):
                break
        # gather_tree: back-trace the beams' tokens (the decoded sequences, as pe's decoder makes them;
        # the score reported does not read them)
        beam, path = torch.arange(BEAM).repeat(BATCH, 1), []
        for token, parent in zip(reversed(tokens), reversed(parents)):
            path.append(token.gather(1, beam))
            beam = parent.gather(1, beam)
        return best_scores(log_probs.numpy())

    return step


def torch_step(torch, decode):
    """bench_models.TorchModel's step function: training or decoding, from weights()."""
    return (torch_decode_step if decode else torch_train_step)(torch, weights())
