# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_rnn_decode_api.py @ 012a6d0301e0c83a3fc294ff91ef03bf91416601
# Re-written for pe, run with `pe fluid`: the static-graph cases (beam-search inference, greedy policy-
# gradient training, teacher-forcing MLE training, sampled policy-gradient training) of a 2-layer LSTM
# seq2seq with attention, built with layers.rnn, BeamSearchDecoder, BasicDecoder + GreedyEmbeddingHelper /
# TrainingHelper / SampleEmbeddingHelper and dynamic_decode
# (the cell's extra arguments passed through dynamic_decode). Changed: embeddings are layers.embedding
# (pe has no fluid.embedding / paddle.nn.Embedding), the source mask uses the known source length
# (pe has no layers.shape), the policy-gradient reward is computed in numpy from a prediction run of the
# pruned program and fed (pe has no py_func), and the facts checked are spelled out: shapes, finite
# costs, lengths. Not ported: the dygraph / hapi cases.
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.core as core
import paddle.fluid.layers as layers
from paddle.fluid.executor import Executor

SRC_LEN, TRG_LEN = 10, 12


class EncoderCell(layers.RNNCell):
    def __init__(self, num_layers, hidden_size, dropout_prob=0.0):
        self.num_layers, self.hidden_size, self.dropout_prob = num_layers, hidden_size, dropout_prob
        self.lstm_cells = [layers.LSTMCell(hidden_size) for i in range(num_layers)]

    def call(self, step_input, states):
        new_states = []
        for i in range(self.num_layers):
            out, new_state = self.lstm_cells[i](step_input, states[i])
            step_input = layers.dropout(out, self.dropout_prob) if self.dropout_prob > 0 else out
            new_states.append(new_state)
        return step_input, new_states

    @property
    def state_shape(self):
        return [cell.state_shape for cell in self.lstm_cells]


class DecoderCell(layers.RNNCell):
    def __init__(self, num_layers, hidden_size, dropout_prob=0.0):
        self.num_layers, self.hidden_size, self.dropout_prob = num_layers, hidden_size, dropout_prob
        self.lstm_cells = [layers.LSTMCell(hidden_size) for i in range(num_layers)]

    def attention(self, hidden, encoder_output, encoder_padding_mask):
        query = layers.fc(hidden, size=encoder_output.shape[-1], bias_attr=False)
        attn_scores = layers.matmul(layers.unsqueeze(query, [1]), encoder_output, transpose_y=True)
        if encoder_padding_mask is not None:
            attn_scores = layers.elementwise_add(attn_scores, encoder_padding_mask)
        attn_scores = layers.softmax(attn_scores)
        attn_out = layers.squeeze(layers.matmul(attn_scores, encoder_output), [1])
        attn_out = layers.concat([attn_out, hidden], 1)
        return layers.fc(attn_out, size=self.hidden_size, bias_attr=False)

    def call(self, step_input, states, encoder_output, encoder_padding_mask=None):
        lstm_states, input_feed = states
        new_lstm_states = []
        step_input = layers.concat([step_input, input_feed], 1)
        for i in range(self.num_layers):
            out, new_lstm_state = self.lstm_cells[i](step_input, lstm_states[i])
            step_input = layers.dropout(out, self.dropout_prob) if self.dropout_prob > 0 else out
            new_lstm_states.append(new_lstm_state)
        out = self.attention(step_input, encoder_output, encoder_padding_mask)
        return out, [new_lstm_states, out]


class Encoder:
    def __init__(self, num_layers, hidden_size, dropout_prob=0.0):
        self.encoder_cell = EncoderCell(num_layers, hidden_size, dropout_prob)

    def __call__(self, src_emb, src_sequence_length):
        return layers.rnn(cell=self.encoder_cell, inputs=src_emb, sequence_length=src_sequence_length, is_reverse=False)


class Decoder:
    def __init__(self, num_layers, hidden_size, dropout_prob, decoding_strategy="infer_greedy", max_decoding_length=20):
        self.decoder_cell = DecoderCell(num_layers, hidden_size, dropout_prob)
        self.decoding_strategy = decoding_strategy
        self.max_decoding_length = None if decoding_strategy == "train_greedy" else max_decoding_length

    def __call__(self, decoder_initial_states, encoder_output, encoder_padding_mask, **kwargs):
        output_layer = kwargs.pop("output_layer", None)
        if self.decoding_strategy == "train_greedy":
            helper = layers.TrainingHelper(**kwargs)
        elif self.decoding_strategy == "infer_sample":
            helper = layers.SampleEmbeddingHelper(**kwargs)
        elif self.decoding_strategy == "infer_greedy":
            helper = layers.GreedyEmbeddingHelper(**kwargs)
        if self.decoding_strategy == "beam_search":
            beam_size = kwargs.get("beam_size", 4)
            encoder_output = layers.BeamSearchDecoder.tile_beam_merge_with_batch(encoder_output, beam_size)
            encoder_padding_mask = layers.BeamSearchDecoder.tile_beam_merge_with_batch(encoder_padding_mask, beam_size)
            decoder = layers.BeamSearchDecoder(cell=self.decoder_cell, output_fn=output_layer, **kwargs)
        else:
            decoder = layers.BasicDecoder(self.decoder_cell, helper, output_fn=output_layer)
        beam = self.decoding_strategy == "beam_search"
        return layers.dynamic_decode(
            decoder,
            inits=decoder_initial_states,
            max_step_num=self.max_decoding_length,
            encoder_output=encoder_output,
            encoder_padding_mask=encoder_padding_mask,
            impute_finished=not beam,
            is_test=beam,
            return_length=True,
        )


def embedder(vocab_size, hidden_size, name):
    def embed(ids):
        ids = layers.unsqueeze(ids, [1]) if len(ids.shape) == 1 else ids
        return layers.embedding(ids, [vocab_size, hidden_size], param_attr=fluid.ParamAttr(name=name))

    return embed


class Seq2SeqModel:
    """RNN encoder-decoder with attention"""

    def __init__(
        self,
        num_layers,
        hidden_size,
        dropout_prob,
        src_vocab_size,
        trg_vocab_size,
        start_token,
        end_token,
        decoding_strategy="infer_greedy",
        max_decoding_length=20,
        beam_size=4,
    ):
        self.start_token, self.end_token = start_token, end_token
        self.max_decoding_length, self.beam_size = max_decoding_length, beam_size
        self.src_embeder = embedder(src_vocab_size, hidden_size, "source_embedding")
        self.trg_embeder = embedder(trg_vocab_size, hidden_size, "target_embedding")
        self.encoder = Encoder(num_layers, hidden_size, dropout_prob)
        self.decoder = Decoder(num_layers, hidden_size, dropout_prob, decoding_strategy, max_decoding_length)
        self.output_layer = lambda x: layers.fc(
            x, size=trg_vocab_size, num_flatten_dims=len(x.shape) - 1, param_attr=fluid.ParamAttr(), bias_attr=False
        )

    def __call__(self, src, src_length, trg=None, trg_length=None):
        encoder_output, encoder_final_state = self.encoder(self.src_embeder(src), src_length)
        decoder_initial_states = [
            encoder_final_state,
            self.decoder.decoder_cell.get_initial_states(batch_ref=encoder_output, shape=[encoder_output.shape[-1]]),
        ]
        src_mask = layers.sequence_mask(src_length, maxlen=SRC_LEN, dtype="float32")
        encoder_padding_mask = layers.unsqueeze(layers.scale(src_mask, 1e9, -1e9), [1])
        strategy = self.decoder.decoding_strategy
        if strategy == "train_greedy":
            kwargs = {"inputs": self.trg_embeder(trg), "sequence_length": trg_length}
        elif strategy == "beam_search":
            kwargs = {
                "embedding_fn": self.trg_embeder,
                "beam_size": self.beam_size,
                "start_token": self.start_token,
                "end_token": self.end_token,
            }
        else:
            kwargs = {
                "embedding_fn": self.trg_embeder,
                "end_token": self.end_token,
                "start_tokens": layers.fill_constant_batch_size_like(
                    input=encoder_output, shape=[-1], dtype=src.dtype, value=self.start_token
                ),
            }
        kwargs["output_layer"] = self.output_layer
        output, _, lengths = self.decoder(decoder_initial_states, encoder_output, encoder_padding_mask, **kwargs)
        if strategy == "beam_search":
            return output
        return layers.softmax(output.cell_outputs), output.sample_ids, lengths


def _masked_sum(cost, length):
    return layers.reduce_sum(cost) / layers.reduce_sum(layers.cast(length, "float32"))


class PolicyGradient:
    def __init__(self, lr=None):
        self.lr = lr

    def learn(self, act_prob, action, reward, length=None):
        neg_log_prob = layers.squeeze(layers.cross_entropy(act_prob, layers.unsqueeze(action, [2])), [2])
        cost = neg_log_prob * reward
        cost = _masked_sum(cost, length) if length is not None else layers.mean(cost)
        fluid.optimizer.Adam(self.lr).minimize(cost)
        return cost


def reward_func(samples, sample_length):
    """toy reward: lengths near 5, no repeated word; spread over the steps, zero past each length"""
    reward = (5 - np.abs(sample_length - 5)).astype("float32")
    for i in range(reward.shape[0]):
        n = sample_length[i]
        if n > 1 and np.all(samples[i][: n - 1] == samples[i][0]):
            reward[i] -= 10
    steps = np.tile(np.arange(samples.shape[1]), [len(reward), 1])
    return ((steps < sample_length[:, None]) * reward[:, None]).astype("float32")


class MLE:
    def __init__(self, lr=None):
        self.lr = lr

    def learn(self, probs, label, weight=None, length=None):
        loss = layers.squeeze(layers.cross_entropy(input=probs, label=layers.unsqueeze(label, [2])), [2])
        loss = loss * layers.sequence_mask(length, dtype="float32")
        loss = layers.reduce_sum(layers.reduce_mean(loss, dim=[0]))
        fluid.optimizer.Adam(self.lr).minimize(loss)
        return loss


class SeqPGAgent:
    def __init__(
        self,
        model_cls,
        alg_cls=PolicyGradient,
        model_hparams={},
        alg_hparams={},
        executor=None,
        main_program=None,
        startup_program=None,
        seed=None,
    ):
        self.main_program = fluid.Program() if main_program is None else main_program
        self.startup_program = fluid.Program() if startup_program is None else startup_program
        if seed is not None:
            self.main_program.random_seed = self.startup_program.random_seed = seed
        self.build_program(model_cls, alg_cls, model_hparams, alg_hparams)
        self.executor = executor

    def build_program(self, model_cls, alg_cls, model_hparams, alg_hparams):
        with fluid.program_guard(self.main_program, self.startup_program):
            source = fluid.data(name="src", shape=[None, None], dtype="int64")
            source_length = fluid.data(name="src_sequence_length", shape=[None], dtype="int64")
            target = fluid.data(name="trg", shape=[None, None], dtype="int64")
            target_length = fluid.data(name="trg_sequence_length", shape=[None], dtype="int64")
            self.model = model_cls(**model_hparams)
            self.alg = alg_cls(**alg_hparams)
            self.probs, self.samples, self.sample_length = self.model(source, source_length, target, target_length)
            self.samples.stop_gradient = True
            self.reward = fluid.data(name="reward", shape=[None, None], dtype=self.probs.dtype)
            self.cost = self.alg.learn(self.probs, self.samples, self.reward, self.sample_length)
        self.pred_program = self.main_program._prune_with_input(
            [source.name, source_length.name], [self.probs, self.samples, self.sample_length]
        )

    def predict(self, feed_dict):
        return self.executor.run(self.pred_program, feed=feed_dict, fetch_list=[self.samples, self.sample_length])

    def learn(self, feed_dict, fetch_list):
        return self.executor.run(self.main_program, feed=feed_dict, fetch_list=fetch_list)


np.random.seed(123)
HPARAMS = {
    "num_layers": 2,
    "hidden_size": 32,
    "dropout_prob": 0.1,
    "src_vocab_size": 100,
    "trg_vocab_size": 100,
    "start_token": 0,
    "end_token": 1,
    "decoding_strategy": "infer_greedy",
    "max_decoding_length": 10,
}
ITERS, BATCH = 2, 4
DATA = {
    "src": np.random.randint(2, 100, (ITERS * BATCH, SRC_LEN)).astype("int64"),
    "src_sequence_length": np.random.randint(1, SRC_LEN, (ITERS * BATCH,)).astype("int64"),
    "trg": np.random.randint(2, 100, (ITERS * BATCH, TRG_LEN)).astype("int64"),
    "trg_sequence_length": np.random.randint(1, TRG_LEN, (ITERS * BATCH,)).astype("int64"),
}
EXE = Executor(core.CPUPlace())


def part(it, names):
    return {k: DATA[k][it * BATCH : (it + 1) * BATCH] for k in names}


def beam_search_infer():
    hparams = dict(HPARAMS, decoding_strategy="beam_search")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        source = fluid.data(name="src", shape=[None, None], dtype="int64")
        source_length = fluid.data(name="src_sequence_length", shape=[None], dtype="int64")
        output = Seq2SeqModel(**hparams)(source, source_length)
    with fluid.scope_guard(core.Scope()):
        EXE.run(startup)
        for it in range(ITERS):
            trans_ids = EXE.run(main, feed=part(it, ["src", "src_sequence_length"]), fetch_list=[output])[0]
            assert trans_ids.shape[0] == BATCH and trans_ids.shape[2] == 4, trans_ids.shape
            assert trans_ids.shape[1] <= hparams["max_decoding_length"] + 1, trans_ids.shape
            assert trans_ids.min() >= 0 and trans_ids.max() < 100


def greedy_train(strategy="infer_greedy"):
    agent = SeqPGAgent(
        Seq2SeqModel,
        PolicyGradient,
        dict(HPARAMS, decoding_strategy=strategy),
        {"lr": 0.001},
        EXE,
        fluid.Program(),
        fluid.Program(),
        seed=123,
    )
    with fluid.scope_guard(core.Scope()):
        EXE.run(agent.startup_program)
        for it in range(ITERS):
            feed = part(it, ["src", "src_sequence_length"])
            samples, lengths = agent.predict(feed)
            assert samples.shape[0] == BATCH and samples.shape[1] <= HPARAMS["max_decoding_length"] + 1
            assert lengths.shape == (BATCH,) and lengths.max() == samples.shape[1] and lengths.min() >= 1
            feed["reward"] = reward_func(samples, lengths)
            reward, cost = agent.learn(feed, fetch_list=[agent.reward, agent.cost])
            assert np.isfinite(cost).all()
            print("iter_idx: %d, reward: %f, cost: %f" % (it, reward.mean(), float(np.asarray(cost).reshape(-1)[0])))


def mle_train():
    agent = SeqPGAgent(
        Seq2SeqModel,
        MLE,
        dict(HPARAMS, decoding_strategy="train_greedy"),
        {"lr": 0.001},
        EXE,
        fluid.Program(),
        fluid.Program(),
        seed=123,
    )
    with fluid.scope_guard(core.Scope()):
        EXE.run(agent.startup_program)
        costs = []
        for it in range(ITERS):
            feed = part(it, ["src", "src_sequence_length", "trg", "trg_sequence_length"])
            feed["reward"] = np.zeros((BATCH, TRG_LEN), "float32")
            lengths, cost = agent.learn(feed, fetch_list=[agent.sample_length, agent.cost])
            np.testing.assert_array_equal(lengths, feed["trg_sequence_length"])  # teacher forcing: the lengths
            costs.append(float(np.asarray(cost).reshape(-1)[0]))
            print("iter_idx: %d, cost: %f" % (it, costs[-1]))
        assert all(np.isfinite(costs)) and costs[0] > 0


# unittest's order: test_beam_search_infer, test_greedy_train, test_mle_train, test_sample_train
beam_search_infer()
greedy_train()
mle_train()
greedy_train("infer_sample")
print("ok")
