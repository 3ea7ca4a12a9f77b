"""The recurrent layers beside dynamic_lstm, through the Fluid face: dynamic_gru equals the same cell
stepped by gru_unit in a DynamicRNN (forward and every gradient); a Fluid-style sentiment classifier
(embedding -> fc -> dynamic_gru or dynamic_lstmp -> sequence_pool max -> fc softmax) learns, and 2
CPU devices end with the parameters of 1 device; lstm_unit is an fc then the cell; a bad input is
one clear error naming the layer."""

import json
import re

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr
from tests.cli.test_helpers import REPO, pe

LENGTHS, H = [2, 4, 1], 3
N, TOKENS = len(LENGTHS), sum(LENGTHS)
rng = np.random.default_rng(31)
LOSS_WEIGHTS = rng.normal(size=(TOKENS, H))


def _gru_program(with_drnn, origin_mode):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", [3 * H], dtype="float64", lod_level=1)
        h0 = layers.data("h0", [H], dtype="float64")
        for v in (x, h0):
            v.stop_gradient = False
        attrs = {"param_attr": ParamAttr("gw"), "bias_attr": ParamAttr("gb"), "origin_mode": origin_mode}
        if not with_drnn:
            hidden = layers.dynamic_gru(x, H, h_0=h0, **attrs)
        else:
            drnn = layers.DynamicRNN()
            with drnn.block():
                xt = drnn.step_input(x)
                hp = drnn.memory(init=h0, need_reorder=True)  # h0 in the batch's order, as dynamic_gru's
                h, _, _ = layers.gru_unit(xt, hp, 3 * H, **attrs)
                drnn.update_memory(hp, h)
                drnn.output(h)
            hidden = drnn()
        weights = layers.cast(layers.assign(LOSS_WEIGHTS.astype("float32")), "float64")
        fluid.backward.append_backward(layers.reduce_sum(hidden * weights))
    return main, hidden


@pytest.mark.parametrize("origin_mode", [False, True])
def test_dynamic_gru_equals_gru_unit_stepped_by_dynamic_rnn(origin_mode):
    values = {
        "x": rng.normal(size=(TOKENS, 3 * H)),
        "h0": rng.normal(size=(N, H)),
        "gw": rng.normal(size=(H, 3 * H)) * 0.5,
        "gb": rng.normal(size=(1, 3 * H)) * 0.1,
    }
    fetch = ["x@GRAD", "h0@GRAD", "gw@GRAD", "gb@GRAD"]
    results = []
    for with_drnn in (False, True):
        main, hidden = _gru_program(with_drnn, origin_mode)
        scope = fluid.core.Scope()
        for name in ("gw", "gb"):
            scope.var(name).get_tensor().set(values[name], fluid.CPUPlace())
        feed = {"x": fluid.create_lod_tensor(values["x"], [LENGTHS], fluid.CPUPlace()), "h0": values["h0"]}
        with fluid.scope_guard(scope):
            results.append(fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[hidden] + fetch))
    for name, want, got in zip(["hidden"] + fetch, *results):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-10, err_msg=name)


VOCAB, EMB, HID, CLASSES = 30, 8, 6, 2


def _sentiment_batch(seed, n=12):
    """Reviews of random token ids; the label says whether the review holds a "positive" token
    (ids below 5), wherever it is."""
    r = np.random.default_rng(seed)
    lengths = [int(v) for v in r.integers(2, 9, size=n)]
    ids = r.integers(5, VOCAB, size=sum(lengths))
    labels = r.integers(0, CLASSES, size=n)
    offs = np.concatenate([[0], np.cumsum(lengths)])
    for i in np.flatnonzero(labels):
        ids[offs[i] + r.integers(0, lengths[i])] = r.integers(0, 5)
    words = fluid.create_lod_tensor(ids.reshape(-1, 1).astype("int64"), [lengths], fluid.CPUPlace())
    return {"words": words, "label": labels.reshape(-1, 1).astype("int64")}


def _recurrent(kind, proj):
    if kind == "gru":
        return fluid.layers.dynamic_gru(fluid.layers.fc(proj, 3 * HID), HID)
    projection, _ = fluid.layers.dynamic_lstmp(
        fluid.layers.fc(proj, 4 * HID), 4 * HID, proj_size=4, cell_clip=3.0, proj_clip=2.0
    )
    return projection


def _train_sentiment(devices, steps, kind="gru"):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup):
        words = fluid.layers.data("words", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data("label", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(words, size=[VOCAB, EMB])
        hidden = _recurrent(kind, emb)
        pooled = fluid.layers.sequence_pool(hidden, "max")
        prediction = fluid.layers.fc(pooled, CLASSES, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(prediction, label))
        fluid.optimizer.Adam(0.05).minimize(loss)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    program = (
        main
        if devices == 1
        else fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()] * devices)
    )
    losses = [
        float(np.mean(exe.run(program, feed=_sentiment_batch(step % 4), fetch_list=[loss], scope=scope)[0]))
        for step in range(steps)
    ]
    return losses, [np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()]


@pytest.mark.parametrize("kind", ["gru", "lstmp"])
def test_sentiment_classifier_learns(kind):
    losses, _ = _train_sentiment(1, 40, kind)
    assert np.mean(losses[-4:]) < 0.5 * np.mean(losses[:4]), losses


@pytest.mark.parametrize("kind,params", [("gru", 7), ("lstmp", 8)])
def test_classifier_on_two_devices_matches_one(kind, params):
    _, one = _train_sentiment(1, 6, kind)
    _, two = _train_sentiment(2, 6, kind)
    assert len(one) == params
    for i, (a, b) in enumerate(zip(one, two)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=f"parameter #{i}")


def test_dynamic_gru_on_a_plain_tensor_is_one_error():
    """Fluid builds it (its InferShape does not check the LoD) and its kernel wants the LoD when it runs."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        out = layers.dynamic_gru(layers.data("x", [3 * H], dtype="float32"), H)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    with pytest.raises(PeError, match=r"gru: Input has no LoD; it takes sequences"):
        exe.run(main, feed={"x": np.zeros((2, 3 * H), "float32")}, fetch_list=[out])


def test_dynamic_gru_input_of_the_wrong_width_is_one_error_when_it_runs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [4 * H], dtype="float32", lod_level=1)
        hidden = layers.dynamic_gru(x, H)  # Fluid 1.8.5 builds it: its gru compares the widths when run
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    feed = {"x": fluid.create_lod_tensor(np.ones((5, 4 * H), "float32"), [[2, 3]], fluid.CPUPlace())}
    with pytest.raises(fluid.core.EnforceNotMet, match=r"Input \[5, 12\] must be \[T, 3D\] = \[T, 9\]"):
        exe.run(main, feed=feed, fetch_list=[hidden])


def _sig(v):
    return 1 / (1 + np.exp(-v))


def test_lstm_unit_layer_is_an_fc_of_input_and_hidden_then_the_cell():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [5], dtype="float64")
        hp = layers.data("hp", [H], dtype="float64")
        cp = layers.data("cp", [H], dtype="float64")
        h, c = layers.lstm_unit(x, hp, cp, forget_bias=0.5, param_attr=ParamAttr("uw"), bias_attr=ParamAttr("ub"))
    feed = {"x": rng.normal(size=(4, 5)), "hp": rng.normal(size=(4, H)), "cp": rng.normal(size=(4, H))}
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    scope.find_var("ub").get_tensor().set(rng.normal(size=(4 * H,)), fluid.CPUPlace())
    got_h, got_c, w, b = exe.run(main, feed=feed, fetch_list=[h, c, "uw", "ub"], scope=scope)
    assert w.shape == (5 + H, 4 * H)
    gi, gf, go, gj = np.split(np.concatenate([feed["x"], feed["hp"]], axis=1) @ w + b, 4, axis=1)
    want_c = _sig(gf + 0.5) * feed["cp"] + _sig(gi) * np.tanh(gj)
    np.testing.assert_allclose(got_c, want_c, rtol=1e-10)
    np.testing.assert_allclose(got_h, _sig(go) * np.tanh(want_c), rtol=1e-10)


def test_lstm_unit_with_hidden_and_cell_of_different_widths_is_one_error():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x, hp, cp = layers.data("x", [5]), layers.data("hp", [H]), layers.data("cp", [H + 1])
        with pytest.raises(PeError, match=r"lstm_unit layer .*must have the same width"):
            layers.lstm_unit(x, hp, cp)


RECURRENT_MODEL = """\
name: rows_recurrent
feeds:
  rows:  {shape: [28], dtype: float32, lod_level: 1}
  label: {shape: [1], dtype: int64}
layers:
  - gates:  {type: fc, input: rows, size: 12}
  - gru:    {type: dynamic_gru, input: gates, size: 4, origin_mode: true}
  - gates2: {type: fc, input: gru, size: 16}
  - lstmp:  {type: dynamic_lstmp, input: gates2, size: 16, proj_size: 3, cell_clip: 2.0}
  - pooled: {type: sequence_pool, input: "lstmp[0]", pool_type: max}
  - logits: {type: fc, input: pooled, size: 10}
  - xent:   {type: softmax_with_cross_entropy, logits: logits, label: label}
  - loss:   {type: mean, x: xent}
  - acc:    {type: accuracy, input: logits, label: label}
loss: loss
fetches: [loss, acc]
"""


def test_a_model_file_uses_the_recurrent_layers_by_name(tmp_path):
    """dynamic_gru and dynamic_lstmp in a YAML model: `pe summary` counts their parameters under
    their names, and `pe train` over the ragged rows data runs steps and checkpoints."""
    env = {"PYTHONPATH": REPO}  # this checkout's pe_cli, whichever one the pe script was installed from
    model = tmp_path / "model.yaml"
    model.write_text(RECURRENT_MODEL)
    summary = pe("summary", model, env=env)
    assert summary.returncode == 0, summary.stderr
    assert re.search(r"gru \(dynamic_gru\)\s+\[-1, 4\]\s+60\s", summary.stdout)  # [4, 12] + [1, 12]
    assert re.search(r"lstmp \(dynamic_lstmp\)\s+\[-1, 3\]\s+\[-1, 4\]\s+88\s", summary.stdout)  # 48 + 12 + 28
    run = tmp_path / "run"
    proc = pe(
        "train",
        "configs/mnist_rows_lstm.yaml",
        f"model={model}",
        "data.train.limit=128",
        "data.eval.limit=64",
        "data.batch_size=32",
        "epochs=1",
        "--max-steps",
        "3",
        "output.curves=false",
        "--out",
        run,
        "-q",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert (run / "ckpt" / "last").read_text().strip() == "step-3"


@pytest.mark.parametrize("layer", ["dynamic_gru", "dynamic_lstmp"])
def test_initial_states_that_do_not_match_the_sequences_are_one_error(layer):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [4 * H], dtype="float32", lod_level=1)
        h0 = layers.data("h0", [H], dtype="float32")
        if layer == "dynamic_gru":
            out = layers.dynamic_gru(layers.fc(x, 3 * H), H, h_0=h0)
        else:
            out, _ = layers.dynamic_lstmp(x, 4 * H, proj_size=H, h_0=h0)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    seqs = fluid.create_lod_tensor(np.ones((5, 4 * H), "float32"), [[2, 3]], fluid.CPUPlace())
    with pytest.raises(PeError, match=r"H0 has 3 rows but Input holds 2 sequences: give one initial state per seq"):
        exe.run(main, feed={"x": seqs, "h0": np.ones((3, H), "float32")}, fetch_list=[out])


# Fluid 1.8.5's op type and output slots of each recurrent layer over LoD input (fluid-1.8.5-ops.json)
FLUID_OPS = {
    "dynamic_lstm": ("lstm", ["Hidden", "Cell", "BatchGate", "BatchCellPreAct"]),
    "dynamic_gru": ("gru", ["Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"]),
    "dynamic_lstmp": ("lstmp", ["Projection", "Cell", "BatchHidden", "BatchGate", "BatchCellPreAct"]),
}


def _lstm_program(h0_dtype="float64"):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [4 * H], dtype="float64", lod_level=1)
        h0 = layers.data("h0", [H], dtype=h0_dtype)
        hidden, _ = layers.dynamic_lstm(x, 4 * H, h_0=h0, c_0=h0, param_attr=ParamAttr("lw"), bias_attr=ParamAttr("lb"))
        loss = layers.reduce_sum(hidden * layers.cast(layers.assign(LOSS_WEIGHTS.astype("float32")), "float64"))
        fluid.backward.append_backward(loss)
    return main, startup, loss


@pytest.mark.parametrize("layer", sorted(FLUID_OPS))
def test_each_layer_builds_fluids_op_with_fluids_outputs(layer):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = layers.data("x", [4 * H], dtype="float32", lod_level=1)
        if layer == "dynamic_gru":
            layers.dynamic_gru(layers.fc(x, 3 * H), H)
        elif layer == "dynamic_lstmp":
            layers.dynamic_lstmp(x, 4 * H, proj_size=2)
        else:
            layers.dynamic_lstm(x, 4 * H)
        op = fluid.default_main_program().global_block().ops[-1]
    assert (op.type, sorted(op.output_names)) == (FLUID_OPS[layer][0], sorted(FLUID_OPS[layer][1]))


@pytest.mark.parametrize("layer", sorted(FLUID_OPS))
def test_an_int_initial_state_is_fluids_type_error(layer):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = layers.data("x", [4 * H], dtype="float32", lod_level=1)
        h0 = layers.data("h0", [H], dtype="int32")
        build = {
            "dynamic_gru": lambda: layers.dynamic_gru(x, H, h_0=h0),
            "dynamic_lstmp": lambda: layers.dynamic_lstmp(x, 4 * H, proj_size=H, h_0=h0),
            "dynamic_lstm": lambda: layers.dynamic_lstm(x, 4 * H, h_0=h0),
        }[layer]
        with pytest.raises(TypeError, match="h_0"):
            build()


def _pe_json(program):
    """A program as pe serialized programs before it wrote Fluid's ProgramDesc (JSON of its blocks)."""
    blocks = [
        {
            "idx": b.idx,
            "parent_idx": b.parent_idx,
            "vars": [
                {
                    "name": v.name,
                    "shape": None if v.shape is None else list(v.shape),
                    "dtype": v.dtype,
                    "lod_level": v.lod_level,
                    "persistable": bool(v.persistable),
                }
                for v in b.vars.values()
            ],
            "ops": [
                {
                    "type": op.type,
                    "inputs": op.inputs,
                    "outputs": op.outputs,
                    "attrs": {k: v for k, v in op.attrs.items() if not k.startswith("_")},
                }
                for op in b.ops
            ],
        }
        for b in program.blocks
    ]
    return json.dumps({"format": "pe-program", "blocks": blocks}, default=repr)


def test_a_program_pe_saved_with_its_old_dynamic_lstm_op_loads_and_trains_as_lstm():
    """pe saved the lstm op as 'dynamic_lstm' (outputs Hidden, Cell, BatchGate; its gradient
    'dynamic_lstm_grad' reading Cell and BatchGate): such a program loads with Fluid's op type and
    computes what the program built today computes (the gradient runs the forward again)."""
    main, _, loss = _lstm_program()
    text = _pe_json(main)
    old = text.replace('"type": "lstm_grad"', '"type": "dynamic_lstm_grad"').replace(
        '"type": "lstm"', '"type": "dynamic_lstm"'
    )
    old_program = fluid.Program.parse_from_string(old.encode())
    types = [op.type for op in old_program.global_block().ops]
    assert "lstm" in types and "lstm_grad" in types and not any(t.startswith("dynamic_lstm") for t in types)
    for op in old_program.global_block().ops:  # the old ops had no BatchCellPreAct, nor Hidden in the grad
        op.outputs.pop("BatchCellPreAct", None)
        if op.type == "lstm_grad":
            op.inputs.pop("BatchCellPreAct", None)
            op.inputs.pop("Hidden", None)
    feed = {
        "x": fluid.create_lod_tensor(rng.normal(size=(TOKENS, 4 * H)), [LENGTHS], fluid.CPUPlace()),
        "h0": rng.normal(size=(N, H)),
    }
    params = {"lw": rng.normal(size=(H, 4 * H)) * 0.5, "lb": rng.normal(size=(1, 7 * H)) * 0.5}
    results = []
    for program in (main, old_program):
        scope = fluid.core.Scope()
        for name, value in params.items():
            scope.var(name).get_tensor().set(value, fluid.CPUPlace())
        with fluid.scope_guard(scope):
            results.append(
                fluid.Executor(fluid.CPUPlace()).run(program, feed=feed, fetch_list=[loss.name, "lw@GRAD", "lb@GRAD"])
            )
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
