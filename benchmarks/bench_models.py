"""The models of bench_cpu.py, built the same way in pe and in PyTorch from the same initial weights.

  mlp     784-256-256-10, softmax cross-entropy, batch 128
  mlp512  the same MLP, batch 512
  lenet   LeNet-5 (conv 6@5x5 pad 2, relu, maxpool 2, conv 16@5x5, relu, maxpool 2, fc 120, 84, 10), batch 64
  seed    X[N, 1] -> fc 10 -> mean, batch 10 (per-step overhead only)
  resnet  a small ResNet: 3x3 conv 16 + batch norm, 3 stages (16, 32, 64 channels) of 2 basic blocks
          (conv-bn-relu-conv-bn + shortcut, a 1x1 conv-bn shortcut where the stage halves the size),
          global average pooling, fc 10; 32x32x3 inputs, batch 64
  wide    4096-4096-4096-10, batch 256
  lstm    64 sequences of 10 to 40 steps (64 features a step): fc to the 4 gates, an LSTM of hidden
          size 128 (no peepholes), the last step, fc 10; pe's dynamic_lstm over a LoD batch against
          PyTorch's nn.LSTM over the same sequences packed (pack_padded_sequence, packed once)
  transformer  configs/mnist_rows_transformer.yaml's model (bench_transformer.py): 64 sequences of 28
          steps of 28 features, fc 64, sinusoidal positions, a 2-layer encoder (4 heads, feed-forward
          128, dropout 0), the mean over the steps, fc 10; pe's transformer_encoder layer against
          PyTorch's nn.TransformerEncoderLayer
  ctr     a sparse CTR model (bench_ctr.py): 8 slots of 100,000-row is_sparse embeddings (16 wide)
          summed per slot, 3 x fc 400, fc 2, batch 512, lazy Adam; PyTorch's EmbeddingBag(sparse=True)
          with SparseAdam
  seq2seq, beam  a translation model with attention (bench_seq2seq.py: LSTM encoder, attention LSTM
          decoder, 10,000 words) trained with teacher forcing, and decoding its batch with beam search
All but ctr train with momentum SGD (lr 0.01, momentum 0.9) on one synthetic batch.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ctr  # noqa: E402
import bench_lstm  # noqa: E402
import bench_seq2seq  # noqa: E402
import bench_transformer  # noqa: E402

MODELS = {
    "mlp": 128,
    "mlp512": 512,
    "lenet": 64,
    "seed": 10,
    "resnet": 64,
    "wide": 256,
    "lstm": 64,
    "transformer": 64,
    "ctr": 512,
    "seq2seq": bench_seq2seq.BATCH,
    "beam": bench_seq2seq.BATCH,
}
NETS = {"mlp512": "mlp"}  # a model measured at a second batch size: the network it is
STEPS_SCALE = {"resnet": 0.2, "wide": 0.1, "seq2seq": 0.1, "beam": 0.06}  # large models: fewer timed steps
SEQ2SEQ = ("seq2seq", "beam")
LR, MU = 0.01, 0.9
STAGES = (16, 32, 64)
BATCH_NORM_MODELS = ("resnet",)
FEATURES, HIDDEN, LENGTHS = bench_lstm.FEATURES, bench_lstm.HIDDEN, (10, 40)


def _resnet_convs():
    """(name, in, out, kernel, stride) of every conv of the ResNet, in build order."""
    convs, ci = [("stem", 3, 16, 3, 1)], 16
    for s, co in enumerate(STAGES):
        for b in range(2):
            stride = 2 if s > 0 and b == 0 else 1
            convs += [(f"s{s}b{b}c0", ci, co, 3, stride), (f"s{s}b{b}c1", co, co, 3, 1)]
            if stride != 1 or ci != co:
                convs.append((f"s{s}b{b}sc", ci, co, 1, stride))
            ci = co
    return convs


# -- what a step costs: analytic FLOPs (multiply-add = 2) ---------------------------------------------


def model_flops(model, batch):
    """FLOPs of one training step: forward, weight gradients, and the input gradients of every
    layer but the first (whose input is data)."""
    model = NETS.get(model, model)
    if model == "beam":  # inference: the forward only
        return sum(bench_seq2seq.flops(batch, decode=True))
    if model in ("mlp", "wide"):
        dims = [784, 256, 256, 10] if model == "mlp" else [4096, 4096, 4096, 10]
        fwd = [2 * batch * i * o for i, o in zip(dims, dims[1:])]
    elif model == "lenet":
        fwd = [
            2 * batch * 6 * 28 * 28 * 25,
            2 * batch * 16 * 10 * 10 * 150,
            2 * batch * 400 * 120,
            2 * batch * 120 * 84,
            2 * batch * 84 * 10,
        ]
    elif model == "resnet":
        fwd, size = [], 32
        for name, ci, co, k, stride in _resnet_convs():
            if name.endswith("sc"):  # the shortcut reads the block's input, of the size before c0
                out = size
            else:
                out = size // stride
                size = out
            fwd.append(2 * batch * co * out * out * ci * k * k)
        fwd.append(2 * batch * 64 * 10)
    elif model == "lstm":
        steps = int(sequence_lengths(batch).sum())
        fwd = [2 * steps * FEATURES * 4 * HIDDEN, 2 * steps * HIDDEN * 4 * HIDDEN, 2 * batch * HIDDEN * 10]
    elif model == "transformer":
        fwd = bench_transformer.flops(batch)
    elif model == "ctr":
        fwd = bench_ctr.flops(batch)
    elif model == "seq2seq":
        fwd = bench_seq2seq.flops(batch)
    else:
        fwd = [2 * batch * 1 * 10]
    return sum(fwd) * 2 + sum(fwd[1:])


def sequence_lengths(batch, seed=1):
    import numpy as np

    return np.random.default_rng(seed).integers(LENGTHS[0], LENGTHS[1] + 1, batch)


def initial_weights(model, seed=0):
    """{name: (weight, bias or None)} shared by pe and PyTorch; fc weights are [in, out] (pe's layout)."""
    import numpy as np

    rng = np.random.default_rng(seed)

    def uniform(shape, fan_in):
        bound = 1.0 / fan_in**0.5
        return rng.uniform(-bound, bound, size=shape).astype(np.float32)

    def fcs(dims):
        return {
            f"fc{i}": (uniform((dims[i], dims[i + 1]), dims[i]), uniform((dims[i + 1],), dims[i]))
            for i in range(len(dims) - 1)
        }

    if model == "mlp":
        return fcs([784, 256, 256, 10])
    if model == "wide":
        return fcs([4096, 4096, 4096, 10])
    if model == "lenet":
        return {
            "conv0": (uniform((6, 1, 5, 5), 25), uniform((6,), 25)),
            "conv1": (uniform((16, 6, 5, 5), 150), uniform((16,), 150)),
            "fc0": (uniform((400, 120), 400), uniform((120,), 400)),
            "fc1": (uniform((120, 84), 120), uniform((84,), 120)),
            "fc2": (uniform((84, 10), 84), uniform((10,), 84)),
        }
    if model == "resnet":
        weights = {name: (uniform((co, ci, k, k), ci * k * k), None) for name, ci, co, k, _ in _resnet_convs()}
        weights["fc0"] = (uniform((64, 10), 64), uniform((10,), 64))
        return weights
    if model == "lstm":
        return {
            "proj": (uniform((FEATURES, 4 * HIDDEN), HIDDEN), uniform((4 * HIDDEN,), HIDDEN)),
            "lstm": (uniform((HIDDEN, 4 * HIDDEN), HIDDEN), uniform((1, 4 * HIDDEN), HIDDEN)),
            "fc0": (uniform((HIDDEN, 10), HIDDEN), uniform((10,), HIDDEN)),
        }
    if model == "transformer":
        return bench_transformer.weights(uniform)
    if model == "ctr":
        return bench_ctr.weights(uniform)
    if model in SEQ2SEQ:  # bench_seq2seq.weights(), by Fluid's parameter names
        return {}
    return {"fc0": (uniform((1, 10), 1), uniform((10,), 1))}


def synthetic_batch(model, batch, seed=1):
    import numpy as np

    rng = np.random.default_rng(seed)
    if model == "seed":
        return {"x": rng.random((batch, 1), dtype=np.float32)}
    if model == "lstm":
        lengths = sequence_lengths(batch, seed)
        return {
            "x": rng.uniform(-1, 1, (int(lengths.sum()), FEATURES)).astype(np.float32),
            "lengths": lengths,
            "label": rng.integers(0, 10, (batch, 1)).astype(np.int64),
        }
    shape = {
        "mlp": (batch, 784),
        "wide": (batch, 4096),
        "lenet": (batch, 1, 28, 28),
        "resnet": (batch, 3, 32, 32),
        "transformer": (batch, bench_transformer.STEPS, bench_transformer.FEATURES),
    }[model]
    return {"x": rng.random(shape, dtype=np.float32), "label": rng.integers(0, 10, (batch, 1)).astype(np.int64)}


def feed_shape(model):
    return {
        "seed": [1],
        "mlp": [784],
        "wide": [4096],
        "lenet": [1, 28, 28],
        "resnet": [3, 32, 32],
        "lstm": [FEATURES],
        "transformer": [bench_transformer.STEPS, bench_transformer.FEATURES],
    }[model]


# -- pe ----------------------------------------------------------------------------------------------


def strategy_of(options):
    """A fluid.BuildStrategy with ``options`` ({name: value}) set, or None for none."""
    if not options:
        return None
    import pe_cli.fluid as fluid

    strategy = fluid.BuildStrategy()
    for name, value in options.items():
        setattr(strategy, name, value)
    return strategy


class PeModel:
    def __init__(self, model, batch, devices, build_strategy=None):
        import numpy as np

        model = NETS.get(model, model)
        import pe_cli.fluid as fluid
        from pe_cli.kernels.cpu.runtime import threads

        self.fluid, self.np = fluid, np
        main, startup = fluid.Program(), fluid.Program()
        names = {}
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            if model == "ctr":
                loss = bench_ctr.pe_program(fluid, _pe_fc, names)
            elif model in SEQ2SEQ:  # the loss, or the decoding's [ids, log-probabilities]
                loss, self.fetch = bench_seq2seq.outputs(fluid, model == "beam")
            else:
                loss = self._program(fluid, model, names)
        self.scope = fluid.Scope()
        self.exe = fluid.Executor(fluid.CPUPlace())
        self.exe.run(startup, scope=self.scope)
        for key, values in initial_weights(model).items():
            for name, value in zip(names[key], values):
                if value is not None:
                    self.scope.find_var(name).get_tensor().set(value, fluid.CPUPlace())
        if devices == 1:  # one device: the Program, or a CompiledProgram running the strategy's passes
            self.program = (
                main if build_strategy is None else fluid.CompiledProgram(main, build_strategy=build_strategy)
            )
        else:
            self.program = fluid.CompiledProgram(main).with_data_parallel(
                loss_name=loss.name if loss is not None else None,
                build_strategy=build_strategy,
                places=[fluid.CPUPlace()] * devices,
            )
        self.loss, self.model = loss, model
        self.threads = threads.describe(devices)
        if model in SEQ2SEQ:
            bench_seq2seq.set_weights(fluid, self.scope, bench_seq2seq.weights())
            self.feed = bench_seq2seq.fluid_feed(fluid, bench_seq2seq.batch_of(), decode=model == "beam")
            return
        if model == "ctr":
            self.feed = bench_ctr.pe_feed(fluid, batch)
            return
        data = synthetic_batch(model, batch)
        self.feed = {"x": data["x"]} if model == "seed" else {"x": data["x"], "label": data["label"]}
        if model == "lstm":
            self.feed["x"] = fluid.create_lod_tensor(data["x"], [data["lengths"].tolist()], fluid.CPUPlace())

    @staticmethod
    def _program(fluid, model, names):
        x = fluid.layers.data("x", feed_shape(model), lod_level=int(model == "lstm"))
        if model == "seed":
            loss = fluid.layers.mean(_pe_fc(fluid, names, x, "fc0", 10))
        else:
            label = fluid.layers.data("label", [1], dtype="int64")
            logits = _PE_NETS[model](fluid, names, x)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        fluid.optimizer.Momentum(LR, momentum=MU).minimize(loss)
        return loss

    def step(self):
        if self.model == "beam":
            return bench_seq2seq.best_scores(
                self.exe.run(self.program, feed=self.feed, fetch_list=self.fetch, scope=self.scope)[1]
            )
        (out,) = self.exe.run(self.program, feed=self.feed, fetch_list=[self.loss], scope=self.scope)
        # the loss as a float, as TorchModel.step's loss.item(): the one value, or the devices' mean
        # (numpy's mean of one value cost 30 us of the tiny model's 0.24 ms step on the Zen 1 VM)
        return out.item() if out.size == 1 else float(self.np.mean(out))


def _pe_fc(fluid, names, x, key, size, act=None, num_flatten_dims=1):
    names[key] = (f"{key}.w", f"{key}.b")
    return fluid.layers.fc(
        x,
        size,
        num_flatten_dims,
        act=act,
        param_attr=fluid.ParamAttr(name=f"{key}.w"),
        bias_attr=fluid.ParamAttr(name=f"{key}.b"),
    )


def _pe_mlp(fluid, names, x, dims):
    for i, size in enumerate(dims):
        x = _pe_fc(fluid, names, x, f"fc{i}", size, "relu" if i + 1 < len(dims) else None)
    return x


def _pe_lenet(fluid, names, x):
    def conv(x, key, filters, padding):
        names[key] = (f"{key}.w", f"{key}.b")
        return fluid.layers.conv2d(
            x,
            filters,
            5,
            padding=padding,
            act="relu",
            param_attr=fluid.ParamAttr(name=f"{key}.w"),
            bias_attr=fluid.ParamAttr(name=f"{key}.b"),
        )

    h = fluid.layers.pool2d(conv(x, "conv0", 6, 2), 2, pool_stride=2)
    h = fluid.layers.pool2d(conv(h, "conv1", 16, 0), 2, pool_stride=2)
    return _pe_mlp(fluid, names, h, [120, 84, 10])


def _pe_resnet(fluid, names, x):
    def conv_bn(x, name, co, k, stride, act):
        names[name] = (f"{name}.w", None)
        h = fluid.layers.conv2d(
            x, co, k, stride=stride, padding=k // 2, bias_attr=False, param_attr=fluid.ParamAttr(name=f"{name}.w")
        )
        return fluid.layers.batch_norm(h, act=act)

    convs = {name: (co, k, stride) for name, _, co, k, stride in _resnet_convs()}
    h = conv_bn(x, "stem", 16, 3, 1, "relu")
    for s in range(len(STAGES)):
        for b in range(2):
            block = f"s{s}b{b}"
            y = conv_bn(h, f"{block}c0", *convs[f"{block}c0"], "relu")
            y = conv_bn(y, f"{block}c1", *convs[f"{block}c1"], None)
            shortcut = conv_bn(h, f"{block}sc", *convs[f"{block}sc"], None) if f"{block}sc" in convs else h
            h = fluid.layers.relu(fluid.layers.elementwise_add(y, shortcut))
    h = fluid.layers.pool2d(h, pool_type="avg", global_pooling=True)
    return _pe_fc(fluid, names, h, "fc0", 10)


def _pe_lstm(fluid, names, x):
    gates = _pe_fc(fluid, names, x, "proj", 4 * HIDDEN)
    names["lstm"] = ("lstm.w", "lstm.b")
    hidden, _ = fluid.layers.dynamic_lstm(
        gates,
        4 * HIDDEN,
        use_peepholes=False,
        param_attr=fluid.ParamAttr(name="lstm.w"),
        bias_attr=fluid.ParamAttr(name="lstm.b"),
    )
    return _pe_fc(fluid, names, fluid.layers.sequence_last_step(hidden), "fc0", 10)


_PE_NETS = {
    "mlp": lambda f, n, x: _pe_mlp(f, n, x, [256, 256, 10]),
    "wide": lambda f, n, x: _pe_mlp(f, n, x, [4096, 4096, 10]),
    "lenet": _pe_lenet,
    "resnet": _pe_resnet,
    "lstm": _pe_lstm,
    "transformer": lambda f, n, x: bench_transformer.pe_net(f, n, x, _pe_fc),
}


# -- PyTorch -----------------------------------------------------------------------------------------


class TorchModel:
    def __init__(self, model, batch, num_threads):
        import torch

        model = NETS.get(model, model)
        torch.set_num_threads(num_threads)
        w = initial_weights(model)
        self.threads = f"torch {torch.__version__}, {torch.get_num_threads()} intra-op thread(s)"
        if model == "ctr":
            self.step = bench_ctr.torch_step(torch, w, batch)
            return
        if model in SEQ2SEQ:
            self.step = bench_seq2seq.torch_step(torch, model == "beam")
            return
        self.net = (
            bench_lstm.torch_net(torch, w)
            if model == "lstm"
            else bench_transformer.torch_net(torch, w)
            if model == "transformer"
            else _torch_net(torch, model, w)
        )
        self.opt = torch.optim.SGD(self.net.parameters(), lr=LR, momentum=MU)
        data = synthetic_batch(model, batch)
        self.x = (
            torch.from_numpy(data["x"]) if model != "lstm" else bench_lstm.packed(torch, data["x"], data["lengths"])
        )
        self.label = torch.from_numpy(data["label"].reshape(-1)) if "label" in data else None
        self.loss_fn = torch.nn.CrossEntropyLoss()
        self.threads = f"torch {torch.__version__}, {torch.get_num_threads()} intra-op thread(s)"

    def step(self):
        self.opt.zero_grad()
        out = self.net(self.x)
        loss = out.mean() if self.label is None else self.loss_fn(out, self.label)
        loss.backward()
        self.opt.step()
        return loss.item()


def _torch_net(torch, model, w):
    nn = torch.nn

    def linear(key):
        weight, bias = w[key]
        m = nn.Linear(*weight.shape)
        m.weight.data = torch.from_numpy(weight.T.copy())
        m.bias.data = torch.from_numpy(bias.copy())
        return m

    def conv(key, padding, bias=True, stride=1):
        weight = w[key][0]
        m = nn.Conv2d(weight.shape[1], weight.shape[0], weight.shape[2], stride=stride, padding=padding, bias=bias)
        m.weight.data = torch.from_numpy(weight.copy())
        if bias:
            m.bias.data = torch.from_numpy(w[key][1].copy())
        return m

    def mlp(n):
        layers = []
        for i in range(n):
            layers += [linear(f"fc{i}")] + ([nn.ReLU()] if i + 1 < n else [])
        return layers

    if model in ("mlp", "wide"):
        return nn.Sequential(*mlp(3))
    if model == "lenet":
        return nn.Sequential(
            conv("conv0", 2),
            nn.ReLU(),
            nn.MaxPool2d(2),
            conv("conv1", 0),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            *mlp(3),
        )
    if model == "resnet":
        return _TorchResNet(torch, conv, linear)
    return linear("fc0")


def _TorchResNet(torch, conv, linear):
    nn = torch.nn

    def conv_bn(name, stride):
        k = 3 if not name.endswith("sc") else 1
        return nn.Sequential(
            conv(name, k // 2, bias=False, stride=stride), nn.BatchNorm2d(conv(name, 0, bias=False).out_channels)
        )

    class Block(nn.Module):
        def __init__(self, block, stride, shortcut):
            super().__init__()
            self.c0, self.c1 = conv_bn(f"{block}c0", stride), conv_bn(f"{block}c1", 1)
            self.sc = conv_bn(f"{block}sc", stride) if shortcut else nn.Identity()

        def forward(self, x):
            return torch.relu(self.c1(torch.relu(self.c0(x))) + self.sc(x))

    names = {name for name, *_ in _resnet_convs()}
    blocks = [
        Block(f"s{s}b{b}", 2 if s > 0 and b == 0 else 1, f"s{s}b{b}sc" in names)
        for s in range(len(STAGES))
        for b in range(2)
    ]
    return nn.Sequential(conv_bn("stem", 1), nn.ReLU(), *blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), linear("fc0"))
