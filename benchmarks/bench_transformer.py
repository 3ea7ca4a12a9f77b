"""The Transformer row of bench_cpu.py (bench_models.py's ``transformer``): the model of
configs/mnist_rows_transformer.yaml, built the same way in pe and in PyTorch from the same weights.

  64 sequences of 28 steps of 28 features (MNIST's rows) -> fc to d_model 64 -> sinusoidal positions
  added -> 2 post-norm encoder layers (4 heads, feed-forward 128, relu) -> the mean over the steps ->
  fc 10; dropout 0 (the config's is 0.1: off here, so that pe's and PyTorch's losses can be compared)

pe builds it with the layer function a model file's ``transformer_encoder`` layer uses; PyTorch with
nn.TransformerEncoderLayer(batch_first=True), its q/k/v weights packed in in_proj_weight."""

STEPS, FEATURES, D_MODEL, HEADS, FFN, LAYERS = 28, 28, 64, 4, 128, 2
_LINEARS = ("q_proj", "k_proj", "v_proj", "out_proj", "linear1", "linear2")


def _layer_keys(i):
    return [f"l{i}.{name}" for name in _LINEARS] + [f"l{i}.norm1", f"l{i}.norm2"]


def weights(uniform):
    """{key: (weight [in, out], bias)}; layer norms start at 1 and 0."""
    import numpy as np

    w = {"embed": (uniform((FEATURES, D_MODEL), FEATURES), uniform((D_MODEL,), FEATURES))}
    for i in range(LAYERS):
        for name in _LINEARS:
            fan_in, fan_out = {"linear1": (D_MODEL, FFN), "linear2": (FFN, D_MODEL)}.get(name, (D_MODEL, D_MODEL))
            w[f"l{i}.{name}"] = (uniform((fan_in, fan_out), fan_in), uniform((fan_out,), fan_in))
        for norm in ("norm1", "norm2"):
            w[f"l{i}.{norm}"] = (np.ones(D_MODEL, np.float32), np.zeros(D_MODEL, np.float32))
    w["fc0"] = (uniform((D_MODEL, 10), D_MODEL), uniform((10,), D_MODEL))
    return w


def flops(batch):
    """Multiply-adds x 2 of the forward, in bench_models.model_flops's list form."""
    tokens = batch * STEPS
    fwd = [2 * tokens * FEATURES * D_MODEL]
    for _ in range(LAYERS):
        fwd += [
            2 * tokens * D_MODEL * 3 * D_MODEL,
            2 * 2 * batch * STEPS * STEPS * D_MODEL,
            2 * tokens * D_MODEL * D_MODEL,
            2 * 2 * tokens * D_MODEL * FFN,
        ]
    return fwd + [2 * batch * D_MODEL * 10]


def pe_net(fluid, names, x, fc):
    """The logits; ``names`` gets each key's parameter names (``fc``: bench_models._pe_fc)."""
    h = fc(fluid, names, x, "embed", D_MODEL, num_flatten_dims=2)
    h = fluid.layers.add_position_encoding(h, 1.0, 1.0)
    h = fluid.layers.transformer_encoder(h, LAYERS, D_MODEL, HEADS, FFN, dropout=0.0, name="enc")
    for i in range(LAYERS):
        for key in _layer_keys(i):
            sub = key.split(".", 1)[1]
            path = f"enc.layers.{i}.{'self_attn.' if sub.endswith('proj') else ''}{sub}"
            names[key] = (f"{path}.w_0", f"{path}.b_0")
    return fc(fluid, names, fluid.layers.reduce_mean(h, dim=1), "fc0", 10)


def torch_net(torch, w):
    import numpy as np

    nn = torch.nn
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731

    def linear(key):
        weight, bias = w[key]
        m = nn.Linear(*weight.shape)
        m.weight.data, m.bias.data = t(weight.T), t(bias)
        return m

    def encoder_layer(i):
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.0, batch_first=True)
        attn = layer.self_attn
        attn.in_proj_weight.data = t(np.concatenate([w[f"l{i}.{p}"][0].T for p in _LINEARS[:3]]))
        attn.in_proj_bias.data = t(np.concatenate([w[f"l{i}.{p}"][1] for p in _LINEARS[:3]]))
        attn.out_proj.weight.data, attn.out_proj.bias.data = t(w[f"l{i}.out_proj"][0].T), t(w[f"l{i}.out_proj"][1])
        layer.linear1, layer.linear2 = linear(f"l{i}.linear1"), linear(f"l{i}.linear2")
        for norm in ("norm1", "norm2"):
            getattr(layer, norm).weight.data, getattr(layer, norm).bias.data = map(t, w[f"l{i}.{norm}"])
        return layer

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed, self.fc = linear("embed"), linear("fc0")
            self.layers = nn.ModuleList([encoder_layer(i) for i in range(LAYERS)])
            self.register_buffer("positions", t(_positions()))

        def forward(self, x):
            h = self.embed(x) + self.positions
            for layer in self.layers:
                h = layer(h)
            return self.fc(h.mean(dim=1))

    return Net()


def _positions():
    """pe's add_position_encoding: sin then cos of pos / 10000^(k / (d/2 - 1)), [STEPS, D_MODEL]."""
    import numpy as np

    half = D_MODEL // 2
    val = np.arange(STEPS, dtype=np.float64)[:, None] / np.power(10000.0, np.arange(half) / (half - 1))
    return np.concatenate([np.sin(val), np.cos(val)], axis=1).astype(np.float32)
