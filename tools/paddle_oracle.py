"""Paddle 2.6.2 as the oracle: builds small static programs with ``paddle.nn`` (a LeNet, an LSTM text
classifier, a 2-layer Transformer encoder classifier with a padding mask, a GRU + pre-norm encoder
one), gives them the same initial weights (from each parameter's structured name) and batches, trains
5 steps of AdamW, and writes what Paddle did (the first batch's logits, the losses, the first step's
gradients, the parameters after every step, the statistics of Paddle's own initial values) to
tests/data/paddle_oracle/<model>.json; and single layers' forward values and input gradients (LAYERS)
to layers.json. tests/paddle/test_paddle_oracle.py replays the same programs (this module's
functions, given pe's ``paddle``) on pe, on 1 and on 2 devices, and compares; CI never needs Paddle.
tools/fluid_oracle.py is the Fluid 1.8.5 twin.

    /work/paddle262/bin/python tools/paddle_oracle.py    # Python 3.10 with paddlepaddle==2.6.2

Nothing here imports paddle or pe at load time: every program takes the ``paddle`` module to build
with, so the same code runs on both engines. Parameters are recorded as samples (12 fixed entries,
the sum and the norm) to keep the files small.
"""

import json
import os
import sys
import zlib

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "paddle_oracle")
STEPS, BATCH, VOCAB, T = 5, 8, 60, 7


# -- programs: each returns (feed names, logits, loss, net, optimizer, scheduler or None) -----------
def lenet(paddle):
    """Conv-ReLU-MaxPool twice, then three Linear layers; AdamW on a cosine schedule."""
    nn, F = paddle.nn, paddle.nn.functional
    x = paddle.static.data("x", [None, 1, 28, 28], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    net = nn.Sequential(
        nn.Conv2D(1, 6, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2D(2, 2),
        nn.Conv2D(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2D(2, 2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )
    logits = net(x)
    loss = F.cross_entropy(logits, y)
    schedule = paddle.optimizer.lr.CosineAnnealingDecay(0.01, 10)
    opt = paddle.optimizer.AdamW(learning_rate=schedule, parameters=net.parameters(), weight_decay=0.05)
    return logits, loss, net, opt, schedule


class _LSTMClassifier:
    """Embedding (padding_idx 0) -> 2-layer bidirectional LSTM over the sequence lengths -> the last
    layer's two final states -> Linear to 3 classes."""

    def __new__(cls, paddle):
        nn = paddle.nn

        class Net(nn.Layer):
            def __init__(self):
                super().__init__()
                self.embedding = nn.Embedding(VOCAB, 16, padding_idx=0)
                self.lstm = nn.LSTM(16, 12, num_layers=2, direction="bidirect")
                self.fc = nn.Linear(24, 3)

            def forward(self, ids, lengths):
                _, (h, _) = self.lstm(self.embedding(ids), sequence_length=lengths)
                last = paddle.concat([h[-2], h[-1]], axis=-1)
                return self.fc(last)

        return Net()


def _text_data(paddle, lengths=True):
    """The text models' inputs: ids [N, T] (0 pads), lengths [N] (when asked), labels [N, 1]."""
    ids = paddle.static.data("ids", [None, T], "int64")
    y = paddle.static.data("y", [None, 1], "int64")
    return (ids, paddle.static.data("lengths", [None], "int64"), y) if lengths else (ids, y)


def lstm(paddle):
    """The LSTM classifier; AdamW with global-norm clipping."""
    ids, lengths, y = _text_data(paddle)
    net = _LSTMClassifier(paddle)
    logits = net(ids, lengths)
    loss = paddle.nn.functional.cross_entropy(logits, y)
    opt = paddle.optimizer.AdamW(learning_rate=0.01, weight_decay=0.01, grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0))
    return logits, loss, net, opt, None


class _EncoderClassifier:
    """Embedding + learned positions -> 2-layer TransformerEncoder (4 heads, no dropout) masked by the
    padding (ids == 0) -> masked mean over time -> Linear to 3 classes."""

    def __new__(cls, paddle):
        nn = paddle.nn

        class Net(nn.Layer):
            def __init__(self):
                super().__init__()
                self.embedding = nn.Embedding(VOCAB, 16)
                self.position = self.create_parameter([T, 16])
                layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0)
                self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(16))
                self.fc = nn.Linear(16, 3)

            def forward(self, ids):
                keep = paddle.not_equal(ids, paddle.zeros_like(ids))  # [N, T] bool
                h = self.encoder(self.embedding(ids) + self.position, src_mask=paddle.unsqueeze(keep, [1, 2]))
                weight = paddle.unsqueeze(paddle.cast(keep, "float32"), [2])
                pooled = paddle.sum(h * weight, axis=1) / paddle.sum(weight, axis=1)
                return self.fc(pooled)

        return Net()


def transformer(paddle):
    """The encoder classifier; AdamW that decays only the weights (not biases or norms)."""
    ids, y = _text_data(paddle, lengths=False)
    net = _EncoderClassifier(paddle)
    logits = net(ids)
    loss = paddle.nn.functional.cross_entropy(logits, y)
    decayed = {p.name for n, p in net.named_parameters() if n.endswith("weight") and "norm" not in n}
    opt = paddle.optimizer.AdamW(
        learning_rate=0.005, weight_decay=0.1, apply_decay_param_fun=lambda name: name in decayed
    )
    return logits, loss, net, opt, None


class _GRUPreNorm:
    """Embedding -> bidirectional time-major GRU over the lengths -> ReLU SimpleRNN -> one pre-norm GELU
    encoder layer with a float (additive) padding mask -> mean over time -> Linear to 3 classes."""

    def __new__(cls, paddle):
        nn = paddle.nn

        class Net(nn.Layer):
            def __init__(self):
                super().__init__()
                self.embedding = nn.Embedding(VOCAB, 16)
                self.gru = nn.GRU(16, 8, direction="bidirect", time_major=True)
                self.rnn = nn.SimpleRNN(16, 16, activation="relu")
                layer = nn.TransformerEncoderLayer(16, 2, 24, dropout=0.0, activation="gelu", normalize_before=True)
                self.encoder = nn.TransformerEncoder(layer, 1)
                self.fc = nn.Linear(16, 3)

            def forward(self, ids, lengths):
                out, _ = self.gru(paddle.transpose(self.embedding(ids), [1, 0, 2]), sequence_length=lengths)
                out, _ = self.rnn(paddle.transpose(out, [1, 0, 2]))
                keep = paddle.cast(paddle.not_equal(ids, paddle.zeros_like(ids)), "float32")
                h = self.encoder(out, src_mask=(paddle.unsqueeze(keep, [1, 2]) - 1.0) * 1e4)
                return self.fc(paddle.mean(h, axis=1))

        return Net()


def gru_prenorm(paddle):
    """The GRU + pre-norm encoder classifier; AdamW (beta1 0.8) on a linear warm-up."""
    ids, lengths, y = _text_data(paddle)
    net = _GRUPreNorm(paddle)
    logits = net(ids, lengths)
    loss = paddle.nn.functional.cross_entropy(logits, y)
    schedule = paddle.optimizer.lr.LinearWarmup(0.01, 3, 0.0, 0.01)
    opt = paddle.optimizer.AdamW(learning_rate=schedule, weight_decay=0.02, beta1=0.8)
    return logits, loss, net, opt, schedule


MODELS = {"lenet": lenet, "lstm": lstm, "transformer": transformer, "gru_prenorm": gru_prenorm}


# -- weights and batches ---------------------------------------------------------------------------
def initial_value(name, shape):
    """The value every engine starts parameter ``name`` (its structured name) at."""
    rng = np.random.RandomState(zlib.crc32(name.encode()) % (2**31))
    if len(shape) == 1:
        base = 1.0 if "norm" in name and name.endswith("weight") else 0.0
        return (base + rng.uniform(-0.1, 0.1, shape)).astype("float32")
    fan = shape[0] + int(np.prod(shape[1:]))
    bound = np.sqrt(6.0 / fan)
    return rng.uniform(-bound, bound, shape).astype("float32")


def batches(model, seed=11):
    rng = np.random.RandomState(seed + len(model))
    out = []
    for _ in range(STEPS):
        if model == "lenet":
            out.append(
                {"x": rng.rand(BATCH, 1, 28, 28).astype("float32"), "y": rng.randint(0, 10, (BATCH, 1)).astype("int64")}
            )
            continue
        lengths = rng.randint(2, T + 1, BATCH)
        lengths[0] = T
        ids = rng.randint(1, VOCAB, (BATCH, T))
        ids[np.arange(T)[None, :] >= lengths[:, None]] = 0
        feed = {"ids": ids.astype("int64"), "y": rng.randint(0, 3, (BATCH, 1)).astype("int64")}
        if model in ("lstm", "gru_prenorm"):
            feed["lengths"] = lengths.astype("int64")
        out.append(feed)
    return out


def sample(value):
    """12 fixed entries, the sum and the norm of ``value`` (float64 lists)."""
    flat = np.asarray(value, "float64").reshape(-1)
    idx = np.unique(np.linspace(0, flat.size - 1, min(flat.size, 12)).astype(int))
    return {"at": flat[idx].tolist(), "sum": float(flat.sum()), "norm": float(np.sqrt((flat**2).sum()))}


def _stats(value):
    v = np.asarray(value, "float64")
    return {
        "shape": list(v.shape),
        "mean": float(v.mean()),
        "std": float(v.std()),
        "min": float(v.min()),
        "max": float(v.max()),
    }


# -- running -------------------------------------------------------------------------------------
def build(paddle, model):
    """(main, startup, logits, loss, {structured name: parameter name}, scheduler)."""
    paddle.seed(2024)  # Paddle's own initial values (recorded as statistics) the same on every run
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        logits, loss, net, opt, schedule = MODELS[model](paddle)
        opt.minimize(loss)
    return main, startup, logits, loss, {n: p.name for n, p in net.named_parameters()}, schedule


def run(paddle, model, devices=1):
    """{"forward": the first batch's logits, "loss": [per step], "init": Paddle-initializer statistics
    per parameter, "grads": first step's gradient samples (1 device), "params": [per step: samples]} of
    ``model`` trained STEPS steps; on ``devices`` CPU places (data parallel) when more than 1."""
    paddle.enable_static()
    main, startup, logits, loss, names, schedule = build(paddle, model)
    place = paddle.CPUPlace()
    exe, scope = paddle.static.Executor(place), paddle.static.Scope()
    program = main
    if devices > 1:
        program = paddle.static.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[place] * devices)
    out = {"forward": None, "loss": [], "init": {}, "grads": {}, "params": []}
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for structured, name in sorted(names.items()):
            tensor = scope.find_var(name).get_tensor()
            out["init"][structured] = _stats(np.array(tensor))
            tensor.set(initial_value(structured, np.array(tensor).shape), place)
        for step, feed in enumerate(batches(model)):
            grads = step == 0 and devices == 1  # on several places a fetched gradient is each place's, joined
            fetch = [loss, logits] + ([names[n] + "@GRAD" for n in sorted(names)] if grads else [])
            values = exe.run(program, feed=feed, fetch_list=fetch)
            out["loss"].append(float(np.mean(np.asarray(values[0], "float64"))))
            if step == 0:
                out["forward"] = np.round(np.asarray(values[1], "float64"), 7).tolist()
                out["grads"] = {n: sample(v) for n, v in zip(sorted(names), values[2:]) if grads}
            out["params"].append({n: sample(np.array(scope.find_var(names[n]).get_tensor())) for n in sorted(names)})
            if schedule is not None:
                schedule.step()
    return out


# -- single layers: forward values and the input's gradient ------------------------------------------
def _distinct(rng, *shape):
    """Values without ties (a max's place is unambiguous), in [-1, 1)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) / n * 2 - 1).astype("float32")


def _unpool_case(pool, unpool):
    def build(paddle, x):
        out, mask = pool(paddle)(x)
        return None, [out, mask, unpool(paddle)(out, mask)]

    return build


LAYERS = {  # name -> (input shape, build(paddle, x) -> (layer with parameters or None, [outputs]))
    "conv3d": (
        (2, 2, 4, 5, 4),
        lambda paddle, x: (lambda m: (m, [m(x)]))(paddle.nn.Conv3D(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=1)),
    ),
    "conv3d_transpose": (
        (1, 2, 3, 4, 3),
        lambda paddle, x: (lambda m: (m, [m(x)]))(
            paddle.nn.Conv3DTranspose(2, 3, 3, stride=2, padding=1, output_padding=1)
        ),
    ),
    "spectral_norm": (
        (3, 4, 2),
        lambda paddle, x: (lambda m: (m, [m(x)]))(paddle.nn.SpectralNorm([3, 4, 2], dim=1, power_iters=3)),
    ),
    "max_unpool2d": (
        (2, 3, 6, 8),
        lambda paddle, x: (
            None,
            [
                *(lambda o, m: (o, m, paddle.nn.functional.max_unpool2d(o, m, 2, 2, output_size=[7, 9])))(
                    *paddle.nn.functional.max_pool2d(x, 2, 2, return_mask=True)
                )
            ],
        ),
    ),
    "max_unpool1d": (
        (2, 3, 9),
        _unpool_case(
            lambda paddle: paddle.nn.MaxPool1D(3, 2, padding=1, return_mask=True),
            lambda paddle: paddle.nn.MaxUnPool1D(3, 2, padding=1),
        ),
    ),
    "max_unpool3d": (
        (1, 2, 4, 6, 4),
        _unpool_case(lambda paddle: paddle.nn.MaxPool3D(2, return_mask=True), lambda paddle: paddle.nn.MaxUnPool3D(2)),
    ),
    "adaptive_max_pool2d_mask": (
        (1, 2, 5, 7),
        lambda paddle, x: (None, list(paddle.nn.functional.adaptive_max_pool2d(x, [2, 3], return_mask=True))),
    ),
    "batch_norm2d": (
        (4, 3, 3, 5),
        lambda paddle, x: (lambda m: (m, [m(x), m._mean, m._variance]))(paddle.nn.BatchNorm2D(3, momentum=0.8)),
    ),
    "rnnt_loss": (
        (3, 5, 4, 6),
        lambda paddle, x: (
            None,
            [paddle.nn.functional.rnnt_loss(x, *_rnnt_targets(paddle), blank=0, fastemit_lambda=0.0, reduction="none")],
        ),
    ),
    "RNNTLoss": ((3, 5, 4, 6), lambda paddle, x: (None, [paddle.nn.RNNTLoss(blank=5)(x, *_rnnt_targets(paddle, 5))])),
}


def _rnnt_targets(paddle, blank=0):
    """Labels [3, 3] (none the blank) and the input's and labels' lengths, as int32 tensors."""
    labels = np.array([[1, 2, 3], [4, 4, 1], [2, 1, 3]], "int32") - (1 if blank else 0)
    return [paddle.to_tensor(a) for a in (labels, np.array([5, 4, 3], "int32"), np.array([3, 2, 1], "int32"))]


def run_layer(paddle, name):
    """{"outputs": [each output's values], "grad_x": d(sum of the float outputs' squares / 2 + sums)/dx}
    of LAYERS[name] on fixed inputs, its parameters set from initial_value."""
    paddle.enable_static()
    shape, build_layer = LAYERS[name]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", list(shape), "float32")
        x.stop_gradient = False
        layer, outs = build_layer(paddle, x)
        floats = [o for o in outs if "float" in str(o.dtype) and not o.stop_gradient]
        loss = paddle.add_n([paddle.sum(o * o) * 0.5 + paddle.sum(o) for o in floats])
        grad = paddle.static.gradients([loss], [x])[0]
    exe, scope, place = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope(), paddle.CPUPlace()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for structured, param in [] if layer is None else layer.named_parameters():
            scope.find_var(param.name).get_tensor().set(initial_value(structured, param.shape), place)
        values = exe.run(
            main, feed={"x": _distinct(np.random.RandomState(len(name)), *shape)}, fetch_list=outs + [grad]
        )
    return {
        "outputs": [np.round(np.asarray(v, "float64"), 6).tolist() for v in values[:-1]],
        "grad_x": np.round(np.asarray(values[-1], "float64"), 6).tolist(),
    }


def run_tanh_bits(paddle):
    """The float32 bits of paddle.tanh in a static program over tools/fluid_oracle.py's run_tanh_bits values (1,003,
    a tail of 3; both ends of Eigen 3.4's clamp at +-7.9053111 and of its tiny branch at 0.0004 among them)."""
    rng = np.random.RandomState(11)
    edges = [0.0, -0.0, 7.9053, -7.906, 9.0, 8.999, 1e-30, -1e-8, 0.0004, 0.00039, 20.0]
    x = np.concatenate([rng.uniform(-12, 12, 600), rng.uniform(-1, 1, 300), rng.uniform(-1e-3, 1e-3, 92), edges])
    x = x.astype("float32")
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        y = paddle.tanh(paddle.static.data("x", [x.size], "float32"))
    out = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": x}, fetch_list=[y])[0]
    return np.asarray(out, "float32").view(np.int32).reshape(-1).tolist()


def _write(name, data):
    path = os.path.join(OUT, name)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=None, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def main():
    import paddle

    os.makedirs(OUT, exist_ok=True)
    source = {
        "engine": f"paddlepaddle {paddle.__version__}",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "recorded_by": "tools/paddle_oracle.py",
    }
    for model in MODELS:
        _write(f"{model}.json", dict(source, run=run(paddle, model)))
    _write("layers.json", dict(source, layers={name: run_layer(paddle, name) for name in LAYERS}))
    _write("tanh.json", dict(source, bits=run_tanh_bits(paddle)))
    print(f"wrote {OUT}/" + ", ".join(f"{m}.json" for m in MODELS) + ", layers.json, tanh.json")


if __name__ == "__main__":
    main()
