"""The workloads Fluid users bring, as one Fluid 1.8 program that Fluid 1.8.5 and pe run unchanged.

    python3.8 benchmarks/fluid_programs.py [--models lstm,gru,ctr,mlp,lenet] [--configs 1,2] [--warmup 5] [--steps 20]
    python -m pe_cli fluid benchmarks/fluid_programs.py [the same options]

benchmarks/fluid_bench.py runs it under both engines and prints the table. Written against Fluid 1.8's
API (``import paddle.fluid as fluid``) and for Python 3.8 with numpy 1.23, the interpreter Fluid 1.8.5 runs
on: no newer syntax, no numpy 2 names. Models:

  lstm   embedding (10,000 x 128) -> fc to 4 x 128 -> dynamic_lstm (hidden 128) -> sequence_pool max and
         last -> fc 2; 64 sequences of 10-60 words (a LoD batch); Adam
  gru    the same with fc to 3 x 128 -> dynamic_gru (hidden 128)
  ctr    8 slots of 100,000-row ``is_sparse`` embeddings (16 wide, 1-4 ids a slot, sequence_pool sum),
         concat, 3 x fc 400 relu, fc 2; batch 512; Adam(lazy_mode=True)
  mlp    784-256-256-10, batch 128; momentum SGD (the dense reference)
  lenet  LeNet-5, batch 64; momentum SGD (the dense reference)
  seq2seq  a translation model with attention (bench_seq2seq.py: 64 sources of 10-40 ids, LSTM encoder 256,
         attention LSTM decoder over 40 target steps, 10,000 words), teacher forcing; momentum SGD
  beam   the same model decoding the batch with BeamSearchDecoder (beam 4) + dynamic_decode

Each model runs on 1 device (an Executor on the program) and on 2 CPU places
(CompiledProgram.with_data_parallel, CPU_NUM=2). The batches (4 of them, fed in turn) come from numpy's
default_rng with fixed seeds, and after the startup program every parameter is set, through the scope, to
an array drawn the same way (in the order the program creates them), so both engines train the same
numbers from the same start. Per model and configuration one JSON line: the time per step (wall time of
the timed steps over their number), the median step, and the losses of the warm-up steps.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_seq2seq  # noqa: E402

os.environ.setdefault("CPU_NUM", "2")  # Fluid's data-parallel CPU places (set before Paddle loads)

MODELS = ("lstm", "gru", "ctr", "mlp", "lenet", "seq2seq", "beam")
SEQ2SEQ = ("seq2seq", "beam")  # their weights and batch: bench_seq2seq.py's (PyTorch's too)
BATCH = {
    "lstm": 64,
    "gru": 64,
    "ctr": 512,
    "mlp": 128,
    "lenet": 64,
    "seq2seq": bench_seq2seq.BATCH,
    "beam": bench_seq2seq.BATCH,
}
VOCAB, EMB, HIDDEN = 10000, 128, 128
CTR_VOCAB, CTR_DIM, CTR_SLOTS = 100000, 16, 8
BATCHES = 4


def _text_net(fluid, rnn):
    words = fluid.layers.data("words", [1], dtype="int64", lod_level=1)
    label = fluid.layers.data("label", [1], dtype="int64")
    emb = fluid.layers.embedding(words, [VOCAB, EMB])
    if rnn == "lstm":
        hidden, _ = fluid.layers.dynamic_lstm(fluid.layers.fc(emb, 4 * HIDDEN), 4 * HIDDEN)
    else:
        hidden = fluid.layers.dynamic_gru(fluid.layers.fc(emb, 3 * HIDDEN), HIDDEN)
    pooled = [fluid.layers.sequence_pool(hidden, "max"), fluid.layers.sequence_pool(hidden, "last")]
    return fluid.layers.fc(pooled, 2), label, fluid.optimizer.Adam(0.001)


def _ctr_net(fluid):
    slots = [fluid.layers.data("s%d" % i, [1], dtype="int64", lod_level=1) for i in range(CTR_SLOTS)]
    label = fluid.layers.data("label", [1], dtype="int64")
    pooled = [
        fluid.layers.sequence_pool(fluid.layers.embedding(s, [CTR_VOCAB, CTR_DIM], is_sparse=True), "sum")
        for s in slots
    ]
    hidden = fluid.layers.concat(pooled, axis=1)
    for _ in range(3):
        hidden = fluid.layers.fc(hidden, 400, act="relu")
    return fluid.layers.fc(hidden, 2), label, fluid.optimizer.Adam(0.001, lazy_mode=True)


def _mlp_net(fluid):
    x = fluid.layers.data("x", [784], dtype="float32")
    label = fluid.layers.data("label", [1], dtype="int64")
    for size in (256, 256):
        x = fluid.layers.fc(x, size, act="relu")
    return fluid.layers.fc(x, 10), label, fluid.optimizer.Momentum(0.01, 0.9)


def _lenet_net(fluid):
    x = fluid.layers.data("x", [1, 28, 28], dtype="float32")
    label = fluid.layers.data("label", [1], dtype="int64")
    x = fluid.layers.pool2d(fluid.layers.conv2d(x, 6, 5, padding=2, act="relu"), 2, "max", 2)
    x = fluid.layers.pool2d(fluid.layers.conv2d(x, 16, 5, act="relu"), 2, "max", 2)
    for size in (120, 84):
        x = fluid.layers.fc(x, size, act="relu")
    return fluid.layers.fc(x, 10), label, fluid.optimizer.Momentum(0.01, 0.9)


def _lod(fluid, rng, lengths, high):
    ids = rng.integers(0, high, (int(sum(lengths)), 1)).astype("int64")
    return fluid.create_lod_tensor(ids, [[int(n) for n in lengths]], fluid.CPUPlace())


def batches(fluid, model, seed=1):
    """The ``BATCHES`` feeds of ``model``, the same on every engine."""
    import numpy as np

    rng, n = np.random.default_rng(seed), BATCH[model]
    if model in SEQ2SEQ:  # one batch, fed every step (as bench_cpu.py's rows)
        return [bench_seq2seq.fluid_feed(fluid, bench_seq2seq.batch_of(seed), model == "beam")] * BATCHES
    feeds = []
    for _ in range(BATCHES):
        feed = {"label": rng.integers(0, 10 if model in ("mlp", "lenet") else 2, (n, 1)).astype("int64")}
        if model in ("lstm", "gru"):
            feed["words"] = _lod(fluid, rng, rng.integers(10, 61, n), VOCAB)
        elif model == "ctr":
            for i in range(CTR_SLOTS):
                feed["s%d" % i] = _lod(fluid, rng, rng.integers(1, 5, n), CTR_VOCAB)
        else:
            shape = (n, 784) if model == "mlp" else (n, 1, 28, 28)
            feed["x"] = rng.random(shape).astype("float32")
        feeds.append(feed)
    return feeds


def initial_value(index, shape):
    """Parameter ``index``'s starting array: uniform in +-1/sqrt(fan-in) (biases: +-0.1), seeded by index."""
    import numpy as np

    rng = np.random.default_rng(1000 + index)
    if len(shape) == 4:
        fan_in = int(np.prod(shape[1:]))
    elif len(shape) == 2 and shape[0] > 1:
        fan_in = shape[0]
    else:
        fan_in = 100
    bound = 1.0 / np.sqrt(fan_in)
    return rng.uniform(-bound, bound, shape).astype("float32")


class Program:
    """One model on ``devices`` CPU places, built, initialized and ready to step."""

    def __init__(self, fluid, model, devices):
        nets = {
            "lstm": lambda: _text_net(fluid, "lstm"),
            "gru": lambda: _text_net(fluid, "gru"),
            "ctr": lambda: _ctr_net(fluid),
            "mlp": lambda: _mlp_net(fluid),
            "lenet": lambda: _lenet_net(fluid),
        }
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 1
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            if model in SEQ2SEQ:  # the loss (None for beam) and what a step fetches
                self.loss, self.fetch = bench_seq2seq.outputs(fluid, model == "beam")
            else:
                logits, label, optimizer = nets[model]()
                self.loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
                optimizer.minimize(self.loss)
                self.fetch = [self.loss]
        place = fluid.CPUPlace()
        self.scope, self.exe = fluid.Scope(), fluid.Executor(place)
        self.exe.run(startup, scope=self.scope)
        self.params = [(p.name, tuple(int(d) for d in p.shape)) for p in main.global_block().all_parameters()]
        for index, (name, shape) in enumerate(self.params):
            self.scope.find_var(name).get_tensor().set(initial_value(index, shape), place)
        if model in SEQ2SEQ:
            bench_seq2seq.set_weights(fluid, self.scope, bench_seq2seq.weights())
        self.program = (
            main
            if devices == 1
            else fluid.CompiledProgram(main).with_data_parallel(
                loss_name=self.loss.name if self.loss is not None else None, places=fluid.cpu_places(devices)
            )
        )
        self.feeds, self.k, self.model = batches(fluid, model), 0, model

    def step(self):
        """One training step on the next batch; its loss (the devices' mean), or beam's decoding result."""
        out = self.exe.run(self.program, feed=self.feeds[self.k % BATCHES], fetch_list=self.fetch, scope=self.scope)
        self.k += 1
        return bench_seq2seq.best_scores(out[1]) if self.model == "beam" else float(out[0].mean())


def measure(fluid, model, devices, warmup, steps):
    """The JSON record of one model and configuration."""
    program = Program(fluid, model, devices)
    losses = [program.step() for _ in range(warmup)]
    times = []
    first = time.perf_counter()
    for _ in range(steps):
        start = time.perf_counter()
        program.step()
        times.append(time.perf_counter() - start)
    per_step = (time.perf_counter() - first) / max(1, steps)
    return {
        "model": model,
        "devices": devices,
        "batch": BATCH[model],
        "per_step_ms": per_step * 1e3,
        "median_ms": statistics.median(times) * 1e3 if times else None,
        "losses": losses,
        "params": [list(p[1]) for p in program.params],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument(
        "--configs",
        default="1,2",
        help="devices of each configuration (1: an Executor; N: CompiledProgram.with_data_parallel on N CPU places)",
    )
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args(argv)
    import paddle
    import paddle.fluid as fluid

    engine = "pe" if fluid.__name__.startswith("pe_cli") else "fluid " + paddle.__version__
    for model in [m for m in args.models.split(",") if m]:
        if model not in MODELS:
            raise SystemExit("fluid_programs: unknown model %r (models: %s)" % (model, ", ".join(MODELS)))
        for devices in [int(d) for d in args.configs.split(",") if d]:
            record = measure(fluid, model, devices, args.warmup, args.steps)
            record["engine"] = engine
            print(json.dumps(record), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
