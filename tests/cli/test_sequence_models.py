"""Sequence models after training (issue 56): `pe predict` and `pe infer` read the ragged .npz that
training reads (NAME + NAME_lengths), and `pe export --onnx` writes an LSTM (configs/mnist_rows_lstm.yaml)
and a GRU as padded inputs plus lengths that onnxruntime runs to `pe predict`'s values within 1e-5,
with sequences of different lengths in one batch and junk past each length. An op without an ONNX
mapping is one line naming the op and its layer. One short training run per model, shared; the other
forms of the sequence ops (and the bundled dynamic_rnn and token models) in-process."""

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from pe_cli.config import load_config
from pe_cli.data.ragged import Ragged
from pe_cli.data.transforms import apply_transforms
from pe_cli.export.onnx_model import exportable_ops
from pe_cli.run.inference import load_inference
from tests.cli.test_helpers import REPO, pe

CONFIG = "configs/mnist_rows_lstm.yaml"
DATA = Path(REPO) / "data" / "mnist_rows" / "mnist_rows.npz"
SMALL = [
    "data.train.limit=256",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=1",
    "output.curves=false",
]
GRU_MODEL = """name: mnist_rows_gru
feeds:
  rows:  {shape: [28], dtype: float32, lod_level: 1}
  label: {shape: [1], dtype: int64}
layers:
  - gates:  {type: fc, input: rows, size: 96}
  - gru:    {type: dynamic_gru, input: gates, size: 32}
  - pooled: {type: sequence_pool, input: gru, pool_type: average}
  - logits: {type: fc, input: pooled, size: 10}
  - xent:   {type: softmax_with_cross_entropy, logits: logits, label: label}
  - loss:   {type: mean, x: xent}
loss: loss
fetches: [loss]
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("sequence_models")
    (root / "gru.yaml").write_text(GRU_MODEL)
    out = {"root": root, "lstm": [CONFIG], "gru": [CONFIG, f"model={root / 'gru.yaml'}"]}
    for name in ("lstm", "gru"):
        proc = pe("train", *out[name], *SMALL, "--max-steps", "4", "--out", root / name, "-q")
        assert proc.returncode == 0, proc.stderr
    with np.load(DATA) as z:
        rows = Ragged(z["rows"], z["rows_lengths"], "rows")[8000:]
    lengths = rows.lengths
    picks = np.concatenate([np.flatnonzero(lengths == n)[:3] for n in np.unique(lengths)])  # every length
    out["rows"] = rows[picks]
    assert out["rows"].lengths.min() <= 12 and out["rows"].lengths.max() >= 18
    with np.load(DATA) as z:  # the bundled file's layout: rows, rows_lengths (and label, unused)
        np.savez(
            root / "rows.npz", rows=out["rows"].values, rows_lengths=out["rows"].lengths, label=z["label"][8000:][picks]
        )
    return out


def _logits(runs, name, rows):
    """The checkpoint's test program run in-process on ``rows`` (a Ragged, through the transforms)."""
    cfg = load_config(runs[name][0], runs[name][1:])
    scaled = apply_transforms(rows.values, cfg.data["data"]["transforms"]["rows"]).astype(np.float32)
    return load_inference(cfg, runs["root"] / name).run({"rows": rows.with_values(scaled)}), scaled


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_predict_and_infer_read_the_ragged_npz_training_reads(runs):
    root = runs["root"]
    proc = pe(
        "predict",
        CONFIG,
        "--checkpoint",
        root / "lstm",
        "--data",
        root / "rows.npz",
        "-o",
        root / "p.npz",
        "-q",
        "data.eval_batch_size=13",
    )  # batches cut between sequences
    assert proc.returncode == 0, proc.stderr
    want, scaled = _logits(runs, "lstm", runs["rows"])
    with np.load(root / "p.npz") as z:
        assert z["prob"].shape == (len(runs["rows"]), 10)
        np.testing.assert_allclose(z["prob"], _softmax(want), rtol=0, atol=1e-6)
        assert (z["class"] == want.argmax(axis=1)).all()
    # pe infer takes no config (no transforms): the rows go in already scaled
    np.savez(root / "scaled.npz", rows=scaled, rows_lengths=runs["rows"].lengths)
    proc = pe("export", CONFIG, "--checkpoint", root / "lstm", "--inference-dir", root / "infer")
    assert proc.returncode == 0, proc.stderr
    proc = pe("infer", root / "infer", "--data", root / "scaled.npz", "-o", root / "infer.npz", "--batch-size", "7")
    assert proc.returncode == 0, proc.stderr
    with np.load(root / "infer.npz") as z:
        np.testing.assert_allclose(z[z.files[0]], want, rtol=0, atol=1e-6)


def test_plain_data_for_a_sequence_feed_is_one_line(runs, tmp_path):
    np.savez(tmp_path / "plain.npz", rows=np.zeros((4, 28), np.uint8))
    proc = pe("predict", CONFIG, "--checkpoint", runs["root"] / "lstm", "--data", tmp_path / "plain.npz")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "rows_lengths" in proc.stderr, proc.stderr


@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_exported_sequence_model_runs_in_onnxruntime_as_pe_predict(runs, name, tmp_path):
    import onnx
    import onnxruntime as ort

    root, path = runs["root"], tmp_path / f"{name}.onnx"
    proc = pe("export", *runs[name], "--checkpoint", root / name, "--onnx", path)
    assert proc.returncode == 0, proc.stderr
    assert "(inputs rows, rows_lengths)" in proc.stdout
    onnx.checker.check_model(onnx.load(str(path)))
    proc = pe(
        "predict", *runs[name], "--checkpoint", root / name, "--data", root / "rows.npz", "-o", tmp_path / "p.npz", "-q"
    )
    assert proc.returncode == 0, proc.stderr
    rows = runs["rows"]
    lengths = rows.lengths
    raw = rows.values.astype(np.float32)  # the config's scale transform is in the graph
    padded = np.random.default_rng(0).normal(0, 50, (len(lengths), lengths.max(), 28)).astype(np.float32)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    for i, n in enumerate(lengths):  # junk past each length: masking must hide it
        padded[i, :n] = raw[offsets[i] : offsets[i + 1]]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = session.run(None, {"rows": padded, "rows_lengths": lengths.astype(np.int64)})[0]
    with np.load(tmp_path / "p.npz") as z:
        assert got.shape == z["prob"].shape == (len(lengths), 10)
        np.testing.assert_allclose(_softmax(got), z["prob"], rtol=0, atol=1e-5)
    want, _ = _logits(runs, name, rows)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


def test_an_op_without_onnx_mapping_is_one_line_naming_it_and_its_layer(runs, tmp_path):
    """The LSTM model with its steps reversed before the pooling: the same parameters, one op that
    has no ONNX mapping."""
    model = (Path(REPO) / "models" / "mnist_rows_lstm.yaml").read_text()
    model = model.replace(
        '  - pooled: {type: sequence_pool, input: "lstm[0]"',
        '  - soft:   {type: sequence_reverse, x: "lstm[0]"}\n  - pooled: {type: sequence_pool, input: soft',
    )
    (tmp_path / "soft.yaml").write_text(model)
    ckpt = runs["root"] / "lstm" / "ckpt"
    weights = tmp_path / "weights" / "step"  # copied out of its run, whose model this is not
    shutil.copytree(ckpt / (ckpt / "last").read_text().strip(), weights)
    proc = pe(
        "export", CONFIG, f"model={tmp_path / 'soft.yaml'}", "--checkpoint", weights, "--onnx", tmp_path / "soft.onnx"
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("pe: error: cannot export to ONNX: op 'sequence_reverse' of layer 'soft' built at ")
    assert "soft.yaml:10 layers[2] soft has no ONNX mapping (ops that export: " in line
    assert not (tmp_path / "soft.onnx").exists()


def test_docs_list_exactly_the_ops_that_export():
    text = (Path(REPO) / "docs" / "ONNX.md").read_text()
    listed = re.search(r"<!-- exportable ops -->\n(.*?)\n<!-- end -->", text, re.S).group(1)
    assert sorted(re.findall(r"`(\w+)`", listed)) == exportable_ops()


# -- the forms of each sequence op, in-process on untrained (random) parameters ---------------------

VARIANTS = {
    "lstm_pools": """
  - gates:  {type: fc, input: rows, size: 64}
  - rnn:    {type: dynamic_lstm, input: gates, size: 64, is_reverse: true, use_peepholes: false}
  - peep:   {type: dynamic_lstm, input: gates, size: 64, gate_activation: tanh, cell_activation: relu}
  - a:      {type: sequence_pool, input: "rnn[0]", pool_type: average}
  - b:      {type: sequence_pool, input: "rnn[0]", pool_type: sqrt}
  - c:      {type: sequence_first_step, input: "peep[0]"}
  - d:      {type: sequence_pool, input: "peep[0]", pool_type: sum}
  - joined: {type: concat, input: [a, b, c, d], axis: 1}""",
    "gru_modes": """
  - gates:  {type: fc, input: rows, size: 48}
  - g1:     {type: dynamic_gru, input: gates, size: 16, origin_mode: true, is_reverse: true}
  - g2:     {type: dynamic_gru, input: gates, size: 16, candidate_activation: relu}
  - a:      {type: sequence_last_step, input: g1}
  - b:      {type: sequence_pool, input: g2, pool_type: max}
  - joined: {type: concat, input: [a, b], axis: 1}""",
    "token_windows": """
  - emb:    {type: embedding, input: tokens, size: [128, 8], padding_idx: 0}
  - ahead:  {type: sequence_conv, input: emb, num_filters: 6, filter_size: 3, padding_start: 0}
  - behind: {type: sequence_conv, input: emb, num_filters: 6, filter_size: 2, padding_start: -4, act: tanh}
  - a:      {type: sequence_pool, input: ahead, pool_type: max}
  - b:      {type: sequence_pool, input: behind, pool_type: average}
  - joined: {type: concat, input: [a, b], axis: 1}""",
    "token_transformer": """
  - zero:   {type: fill_constant, shape: [1], dtype: int64, value: 0}
  - padded: {type: sequence_pad, x: tokens, pad_value: zero, maxlen: 24}
  - ids:    {type: reshape, x: "padded[0]", shape: [-1, 24]}
  - emb:    {type: Embedding, x: ids, num_embeddings: 128, embedding_dim: 8}
  - pos:    {type: add_position_encoding, input: emb, alpha: 1.0, beta: 1.0}
  - enc:    {type: TransformerEncoderLayer, src: pos, d_model: 8, nhead: 2, dim_feedforward: 16,
             normalize_before: true, length: "padded[1]"}
  - norm:   {type: LayerNorm, input: enc, normalized_shape: 8}
  - steps:  {type: sequence_unpad, x: norm, length: "padded[1]"}
  - joined: {type: sequence_pool, input: steps, pool_type: average}""",
    "rows_transformer": """
  - zero:   {type: fill_constant, shape: [1], dtype: float32, value: -1.0}
  - padded: {type: sequence_pad, x: rows, pad_value: zero}
  - proj:   {type: Linear, input: "padded[0]", in_features: 28, out_features: 8}
  - att:    {type: MultiHeadAttention, query: proj, embed_dim: 8, num_heads: 2}
  - enc:    {type: TransformerEncoder, src: att, num_layers: 1, norm: {},
             encoder_layer: {d_model: 8, nhead: 2, dim_feedforward: 16}}
  - a:      {type: reduce_mean, input: enc, dim: [1]}
  - b:      {type: reduce_sum, input: enc, dim: [1], keep_dim: true}
  - b2:     {type: reshape, x: b, shape: [-1, 8]}
  - c:      {type: reduce_max, input: enc, dim: 1}
  - joined: {type: concat, input: [a, b2, c], axis: 1}""",
}


def _untrained(path):
    """The Inference (run/inference.py) of a model file on its startup program's random parameters."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.config import load_model
    from pe_cli.executor import Executor, Scope, scope_guard
    from pe_cli.run.build import build_programs
    from pe_cli.run.inference import Inference, _prune, output_layer, split_feeds, task_kind

    spec = load_model(str(path))
    programs = build_programs(spec, with_optimizer=False)
    exe, scope = Executor(CPUPlace()), Scope()
    with scope_guard(scope):
        exe.run(programs.startup)
    name = output_layer(spec)
    target = programs.model.var(name)
    program = programs.test.clone(for_test=True)
    _prune(program, [target.name])
    inputs, labels = split_feeds(spec)
    return Inference(program, inputs, labels, name, target, task_kind(spec), exe, scope, None, 0)


BUNDLED = ["mnist_rows_dynamic_rnn", "mnist_tokens_conv"]  # models/NAME.yaml


@pytest.mark.parametrize("variant", sorted(VARIANTS) + BUNDLED)
def test_sequence_op_forms_match_in_onnxruntime(variant, tmp_path):
    import onnxruntime as ort
    from pe_cli.export.onnx_model import onnx_model

    feed = "tokens" if "token" in variant else "rows"
    spec = {"rows": "{shape: [28], dtype: float32, lod_level: 1}", "tokens": "{shape: [1], dtype: int64, lod_level: 1}"}
    path = Path(REPO) / "models" / f"{variant}.yaml"
    if variant in VARIANTS:
        path = tmp_path / "m.yaml"
        path.write_text(
            f"name: {variant}\nfeeds:\n  {feed}: {spec[feed]}\n"
            f"  label: {{shape: [1], dtype: int64}}\nlayers:{VARIANTS[variant]}\n"
            "  - logits: {type: fc, input: joined, size: 10}\n"
            "  - xent:   {type: softmax_with_cross_entropy, logits: logits, label: label}\n"
            "  - loss:   {type: mean, x: xent}\nloss: loss\n"
        )
    inference = _untrained(path)
    with np.load(
        Path(REPO) / "data" / ("mnist_tokens/mnist_tokens.npz" if feed == "tokens" else "mnist_rows/mnist_rows.npz")
    ) as z:
        column = Ragged(z[feed], z[feed + "_lengths"], feed)[8000:8400]
    picks = np.concatenate([np.flatnonzero(column.lengths == n)[:2] for n in np.unique(column.lengths)])
    column = column[picks]
    values = column.values.astype(np.float32) / 255 if feed == "rows" else column.values.reshape(-1, 1)
    column = column.with_values(values)
    want = inference.run({feed: column})
    lengths = column.lengths
    padded = np.full((len(lengths), lengths.max()) + values.shape[1:], 5, values.dtype)  # junk past each length
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    for i, n in enumerate(lengths):
        padded[i, :n] = values[offsets[i] : offsets[i + 1]]
    session = ort.InferenceSession(onnx_model(inference).SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, {feed: padded, feed + "_lengths": lengths})[0]
    assert lengths.min() < lengths.max() and got.shape == want.shape == (len(lengths), 10)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
