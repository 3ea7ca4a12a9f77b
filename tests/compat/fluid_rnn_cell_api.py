# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_rnn_cell_api.py @ 012a6d0301e0c83a3fc294ff91ef03bf91416601
# Re-written for pe, run with `pe fluid`: the same Fluid 1.8 calls (LSTMCell, GRUCell, layers.rnn) and
# the same facts, with two changes: the cells are checked against numpy forms of Fluid's BasicLSTMUnit
# and BasicGRUUnit (pe has no fluid.contrib), given the same parameters by their Fluid names, and
# layers.rnn against a numpy LSTM (instead of contrib's basic_lstm); the seq2seq model uses
# layers.embedding / reduce_mean and a sequence mask of the known target length (pe has no
# fluid.embedding or layers.shape).
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.core as core
import paddle.fluid.layers as layers
import paddle.fluid.layers.utils as utils
from paddle.fluid.executor import Executor
from paddle.fluid.framework import Program, program_guard
from paddle.fluid.layers import rnn as dynamic_rnn
from paddle.fluid.layers.rnn import GRUCell, LSTMCell, RNNCell

np.random.seed(123)
PLACE = core.CPUPlace()


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_lstm_unit(x, h, c, w, b, forget_bias=1.0):
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ w + b, 4, axis=1)
    c = c * sigmoid(f + forget_bias) + sigmoid(i) * np.tanh(j)
    return np.tanh(c) * sigmoid(o), c


def np_gru_unit(x, h, w0, w1, b0, b1):
    r, u = np.split(sigmoid(np.concatenate([x, h], 1) @ w0 + b0), 2, axis=1)
    c = np.tanh(np.concatenate([x, r * h], 1) @ w1 + b1)
    return u * h + (1 - u) * c


def raises_type_error(fn):
    try:
        fn()
    except TypeError:
        return
    raise AssertionError(f"{fn.__name__} did not raise TypeError")


def set_random(scope, names):
    values = []
    for name in names:
        shape = np.array(scope.find_var(name).get_tensor()).shape
        value = np.random.uniform(-0.1, 0.1, size=shape).astype("float32")
        scope.find_var(name).get_tensor().set(value, PLACE)
        values.append(value)
    return values


def lstm_cell_errors():
    with program_guard(Program(), Program()):
        batch_size, input_size, hidden_size = 4, 16, 16
        inputs = fluid.data(name="inputs", shape=[None, input_size], dtype="float32")
        pre_hidden = fluid.data(name="pre_hidden", shape=[None, hidden_size], dtype="float32")
        pre_cell = fluid.data(name="pre_cell", shape=[None, hidden_size], dtype="float32")
        cell = LSTMCell(hidden_size)
        np_in = np.random.random((batch_size, input_size)).astype("float32")
        raises_type_error(lambda: cell(np_in, [pre_hidden, pre_cell]))
        raises_type_error(lambda: cell(inputs, [np_in, pre_cell]))
        raises_type_error(lambda: cell(inputs, [pre_hidden, np_in]))
        for name, args in (
            ("error_inputs", lambda v: (v, [pre_hidden, pre_cell])),
            ("error_pre_hidden", lambda v: (inputs, [v, pre_cell])),
            ("error_pre_cell", lambda v: (inputs, [pre_hidden, v])),
        ):
            wrong = fluid.data(name=name, shape=[None, input_size], dtype="int32")
            raises_type_error(lambda: cell(*args(wrong)))
        raises_type_error(lambda: LSTMCell(hidden_size, dtype="int32"))


def gru_cell_errors():
    with program_guard(Program(), Program()):
        batch_size, input_size, hidden_size = 4, 16, 16
        inputs = fluid.data(name="inputs", shape=[None, input_size], dtype="float32")
        pre_hidden = layers.data(name="pre_hidden", shape=[None, hidden_size], append_batch_size=False, dtype="float32")
        cell = GRUCell(hidden_size)
        raises_type_error(lambda: cell(np.random.random((batch_size, input_size)).astype("float32"), pre_hidden))
        raises_type_error(lambda: cell(inputs, np.random.random((batch_size, hidden_size)).astype("float32")))
        raises_type_error(
            lambda: cell(fluid.data(name="error_inputs", shape=[None, input_size], dtype="int32"), pre_hidden)
        )
        raises_type_error(
            lambda: cell(inputs, fluid.data(name="error_pre_hidden", shape=[None, hidden_size], dtype="int32"))
        )
        raises_type_error(lambda: GRUCell(hidden_size, dtype="int32"))


def lstm_cell_run():
    batch_size, input_size, hidden_size = 4, 16, 16
    main, startup = Program(), Program()
    with program_guard(main, startup):
        inputs = fluid.data(name="inputs", shape=[None, input_size], dtype="float32")
        pre_hidden = fluid.data(name="pre_hidden", shape=[None, hidden_size], dtype="float32")
        pre_cell = fluid.data(name="pre_cell", shape=[None, hidden_size], dtype="float32")
        cell = LSTMCell(hidden_size)
        new_hidden, new_states = cell(inputs, [pre_hidden, pre_cell])
    exe = Executor(PLACE)
    scope = core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        w, b = set_random(scope, ["LSTMCell/BasicLSTMUnit_0.w_0", "LSTMCell/BasicLSTMUnit_0.b_0"])
        x, h, c = (
            np.random.uniform(-0.1, 0.1, (batch_size, n)).astype("float32")
            for n in (input_size, hidden_size, hidden_size)
        )
        out = exe.run(main, feed={"inputs": x, "pre_hidden": h, "pre_cell": c}, fetch_list=[new_hidden])
    np.testing.assert_allclose(out[0], np_lstm_unit(x, h, c, w, b)[0], rtol=1e-4, atol=0)


def gru_cell_run():
    batch_size, input_size, hidden_size = 4, 16, 16
    main, startup = Program(), Program()
    with program_guard(main, startup):
        inputs = fluid.data(name="inputs", shape=[None, input_size], dtype="float32")
        pre_hidden = layers.data(name="pre_hidden", shape=[None, hidden_size], append_batch_size=False, dtype="float32")
        cell = GRUCell(hidden_size)
        gru_hidden_new, _ = cell(inputs, pre_hidden)
    exe = Executor(PLACE)
    scope = core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        params = set_random(scope, [f"GRUCell/BasicGRUUnit_0.{p}" for p in ("w_0", "w_1", "b_0", "b_1")])
        x = np.random.uniform(-0.1, 0.1, (batch_size, input_size)).astype("float32")
        h = np.random.uniform(-0.1, 0.1, (batch_size, hidden_size)).astype("float32")
        out = exe.run(main, feed={"inputs": x, "pre_hidden": h}, fetch_list=[gru_hidden_new])
    np.testing.assert_allclose(out[0], np_gru_unit(x, h, *params), rtol=1e-4, atol=0)


def rnn_errors():
    with program_guard(Program(), Program()):
        batch_size, input_size, hidden_size, seq_len = 4, 16, 16, 4
        inputs_basic_lstm = fluid.data(name="inputs_basic_lstm", shape=[None, None, input_size], dtype="float32")
        sequence_length = fluid.data(name="sequence_length", shape=[None], dtype="int64")
        inputs_dynamic_rnn = layers.transpose(inputs_basic_lstm, perm=[1, 0, 2])
        cell = LSTMCell(hidden_size, name="LSTMCell_for_rnn")
        np_inputs = np.random.random((seq_len, batch_size, input_size)).astype("float32")
        raises_type_error(lambda: dynamic_rnn(cell=cell, inputs=np_inputs, sequence_length=sequence_length))
        raises_type_error(lambda: dynamic_rnn(cell=cell, inputs=[np_inputs], sequence_length=sequence_length))
        gru = GRUCell(hidden_size, name="GRUCell_for_rnn")
        raises_type_error(
            lambda: dynamic_rnn(
                cell=gru,
                inputs=inputs_dynamic_rnn,
                sequence_length=sequence_length,
                initial_states=np.random.random((batch_size, hidden_size)).astype("float32"),
            )
        )
        raises_type_error(
            lambda: dynamic_rnn(
                cell=cell,
                inputs=inputs_dynamic_rnn,
                sequence_length=sequence_length,
                initial_states=[np.random.random((batch_size, hidden_size)).astype("float32")] * 2,
            )
        )
        raises_type_error(
            lambda: dynamic_rnn(
                cell=cell, inputs=inputs_dynamic_rnn, sequence_length=np.random.random(batch_size).astype("float32")
            )
        )


def rnn_run():
    batch_size, input_size, hidden_size, seq_len = 4, 16, 16, 4
    main, startup = Program(), Program()
    with program_guard(main, startup):
        inputs_basic_lstm = fluid.data(name="inputs_basic_lstm", shape=[None, None, input_size], dtype="float32")
        sequence_length = fluid.data(name="sequence_length", shape=[None], dtype="int64")
        inputs_dynamic_rnn = layers.transpose(inputs_basic_lstm, perm=[1, 0, 2])
        cell = LSTMCell(hidden_size, name="LSTMCell_for_rnn")
        output, final_state = dynamic_rnn(
            cell=cell, inputs=inputs_dynamic_rnn, sequence_length=sequence_length, is_reverse=False
        )
        output_new = layers.transpose(output, perm=[1, 0, 2])
    exe = Executor(PLACE)
    scope = core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        w, b = set_random(scope, ["LSTMCell_for_rnn/BasicLSTMUnit_0.w_0", "LSTMCell_for_rnn/BasicLSTMUnit_0.b_0"])
        x = np.random.uniform(-0.1, 0.1, (seq_len, batch_size, input_size)).astype("float32")
        out = exe.run(
            main,
            feed={"inputs_basic_lstm": x, "sequence_length": np.ones(batch_size, dtype="int64") * seq_len},
            fetch_list=[output_new, final_state[0]],
        )
    h, c, outs = np.zeros((batch_size, hidden_size)), np.zeros((batch_size, hidden_size)), []
    for t in range(seq_len):
        h, c = np_lstm_unit(x[t], h, c, w, b)
        outs.append(h)
    np.testing.assert_allclose(out[0], np.stack(outs), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out[1], h, rtol=1e-4, atol=1e-6)


def rnn_util():
    inputs = {"key1": 1, "key2": 2}
    outputs = utils.map_structure(lambda x: x + 1, inputs)
    utils.assert_same_structure(inputs, outputs)
    assert outputs == {"key1": 2, "key2": 3}
    inputs["key3"] = 3
    try:
        utils.assert_same_structure(inputs, outputs)
    except ValueError:
        pass
    else:
        raise AssertionError("structures with different keys passed assert_same_structure")


class EncoderCell(RNNCell):
    def __init__(self, num_layers, hidden_size, dropout_prob=0.0, init_scale=0.1):
        self.num_layers, self.hidden_size, self.dropout_prob = num_layers, hidden_size, dropout_prob
        self.lstm_cells = [LSTMCell(hidden_size) for _ in range(num_layers)]

    def call(self, step_input, states):
        new_states = []
        for i in range(self.num_layers):
            out, new_state = self.lstm_cells[i](step_input, states[i])
            step_input = layers.dropout(out, self.dropout_prob) if self.dropout_prob else out
            new_states.append(new_state)
        return step_input, new_states

    @property
    def state_shape(self):
        return [cell.state_shape for cell in self.lstm_cells]


class DecoderCell(EncoderCell):
    pass


def def_seq2seq_model(num_layers, hidden_size, dropout_prob, src_vocab_size, trg_vocab_size, trg_seq_len):
    source = fluid.data(name="src", shape=[None, None], dtype="int64")
    source_length = fluid.data(name="src_sequence_length", shape=[None], dtype="int64")
    target = fluid.data(name="trg", shape=[None, None], dtype="int64")
    target_length = fluid.data(name="trg_sequence_length", shape=[None], dtype="int64")
    label = fluid.data(name="label", shape=[None, None, 1], dtype="int64")
    src_emb = layers.embedding(source, (src_vocab_size, hidden_size))
    tar_emb = layers.embedding(target, (src_vocab_size, hidden_size))
    enc_cell = EncoderCell(num_layers, hidden_size, dropout_prob)
    enc_output, enc_final_state = dynamic_rnn(cell=enc_cell, inputs=src_emb, sequence_length=source_length)
    dec_cell = DecoderCell(num_layers, hidden_size, dropout_prob)
    dec_output, dec_final_state = dynamic_rnn(cell=dec_cell, inputs=tar_emb, initial_states=enc_final_state)
    logits = layers.fc(dec_output, size=trg_vocab_size, num_flatten_dims=len(dec_output.shape) - 1, bias_attr=False)
    loss = layers.softmax_with_cross_entropy(logits=logits, label=label, soft_label=False)
    loss = layers.squeeze(loss, axes=[2])
    tar_mask = layers.sequence_mask(target_length, maxlen=trg_seq_len, dtype="float32")
    loss = layers.reduce_sum(layers.reduce_mean(loss * tar_mask, dim=[0]))
    fluid.optimizer.Adam(0.001).minimize(loss)
    return loss


def seq2seq_model():
    hparams = {"num_layers": 2, "hidden_size": 128, "dropout_prob": 0.1, "src_vocab_size": 100, "trg_vocab_size": 100}
    iter_num, batch_size, src_seq_len, trg_seq_len = 2, 4, 10, 12
    n = iter_num * batch_size
    data = {
        "src": np.random.randint(2, 100, (n, src_seq_len)).astype("int64"),
        "src_sequence_length": np.random.randint(1, src_seq_len, (n,)).astype("int64"),
        "trg": np.random.randint(2, 100, (n, trg_seq_len)).astype("int64"),
        "trg_sequence_length": np.random.randint(1, trg_seq_len, (n,)).astype("int64"),
        "label": np.random.randint(2, 100, (n, trg_seq_len, 1)).astype("int64"),
    }
    main, startup = fluid.Program(), fluid.Program()
    exe = Executor(PLACE)
    with fluid.program_guard(main, startup):
        cost = def_seq2seq_model(trg_seq_len=trg_seq_len, **hparams)
        with fluid.scope_guard(core.Scope()):
            exe.run(startup)
            for it in range(iter_num):
                part = slice(it * batch_size, (it + 1) * batch_size)
                cost_val = exe.run(feed={k: v[part] for k, v in data.items()}, fetch_list=[cost])[0]
                assert np.isfinite(cost_val).all() and float(np.asarray(cost_val).reshape(-1)[0]) > 0
                print("iter_idx: %d, cost: %f" % (it, float(np.asarray(cost_val).reshape(-1)[0])))


# unittest's order (test classes by name): TestGRUCell, TestGRUCellError, TestLSTMCell, ... TestSeq2SeqModel
gru_cell_run()
gru_cell_errors()
lstm_cell_run()
lstm_cell_errors()
rnn_run()
rnn_errors()
rnn_util()
seq2seq_model()
print("ok")
