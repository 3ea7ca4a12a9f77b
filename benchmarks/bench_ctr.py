"""The sparse CTR row of bench_cpu.py (bench_models.py's ``ctr``), built the same way in pe and in
PyTorch from the same weights and batch:

  8 slots of ids (1 to 4 ids a sample) from 100,000-row embedding tables (16 wide) -> each slot's
  embeddings summed -> concatenated (128) -> 3 x fc 400 relu -> fc 2 -> softmax cross-entropy;
  batch 512; lazy Adam (lr 0.001): only the rows a batch reads move, with their moments

pe: ``embedding(is_sparse=True)`` (a row-sparse gradient) and ``sequence_pool`` over a LoD feed per
slot, lazy Adam for the tables and Adam for the rest, one backward pass. PyTorch:
``nn.EmbeddingBag(mode="sum", sparse=True)`` with ``optim.SparseAdam`` for the tables and ``optim.Adam``
for the rest. Epsilon sits where each PyTorch optimizer puts it: SparseAdam beside sqrt(v) as Fluid
1.8's Adam, Adam scaled by sqrt(1 - beta2^t) as Paddle 2.x's (``epsilon_scaled``); rows of tiny
gradients move differently under the two."""

VOCAB, DIM, SLOTS, HIDDEN, LR = 100_000, 16, 8, (400, 400, 400), 0.001


def weights(uniform):
    """{key: (weight, bias or None)}: the tables [VOCAB, DIM], fc weights [in, out]."""
    w = {f"emb{i}": (uniform((VOCAB, DIM), DIM), None) for i in range(SLOTS)}
    dims = [SLOTS * DIM, *HIDDEN, 2]
    w.update(
        {
            f"fc{i}": (uniform((dims[i], dims[i + 1]), dims[i]), uniform((dims[i + 1],), dims[i]))
            for i in range(len(dims) - 1)
        }
    )
    return w


def flops(batch):
    """Multiply-adds x 2 of the forward's dense layers, in bench_models.model_flops's list form."""
    dims = [SLOTS * DIM, *HIDDEN, 2]
    return [2 * batch * dims[i] * dims[i + 1] for i in range(len(dims) - 1)]


def batch_of(batch, seed=1):
    """{"ids": [SLOTS arrays of ids], "lengths": [SLOTS arrays], "label": [batch, 1]}."""
    import numpy as np

    rng = np.random.default_rng(seed)
    lengths = [rng.integers(1, 5, batch) for _ in range(SLOTS)]
    ids = [rng.integers(0, VOCAB, int(n.sum())).astype(np.int64) for n in lengths]
    return {"ids": ids, "lengths": lengths, "label": rng.integers(0, 2, (batch, 1)).astype(np.int64)}


def pe_program(fluid, fc, names):
    """(feeds' names, loss) of the CTR model in the current program; ``names`` gets each key's
    parameter names (``fc``: bench_models._pe_fc)."""
    slots = [fluid.layers.data(f"s{i}", [1], dtype="int64", lod_level=1) for i in range(SLOTS)]
    label = fluid.layers.data("label", [1], dtype="int64")
    pooled = []
    for i, slot in enumerate(slots):
        names[f"emb{i}"] = (f"emb{i}.w", None)
        emb = fluid.layers.embedding(slot, [VOCAB, DIM], is_sparse=True, param_attr=fluid.ParamAttr(name=f"emb{i}.w"))
        pooled.append(fluid.layers.sequence_pool(emb, "sum"))
    h = fluid.layers.concat(pooled, axis=1)
    for i in range(len(HIDDEN)):
        h = fc(fluid, names, h, f"fc{i}", HIDDEN[i], act="relu")
    logits = fc(fluid, names, h, f"fc{len(HIDDEN)}", 2)
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
    grads = fluid.backward.append_backward(loss)
    tables = [pg for pg in grads if pg[0].name.startswith("emb")]
    dense = [pg for pg in grads if not pg[0].name.startswith("emb")]
    # PyTorch's SparseAdam adds epsilon to sqrt(v) as Fluid 1.8 does; its Adam scales it as Paddle 2.x
    fluid.optimizer.Adam(LR, lazy_mode=True).apply_gradients(tables)
    fluid.optimizer.Adam(LR, epsilon_scaled=True).apply_gradients(dense)
    return loss


def pe_feed(fluid, batch, seed=1):
    data = batch_of(batch, seed)
    feed = {
        f"s{i}": fluid.create_lod_tensor(ids.reshape(-1, 1), [n.tolist()], fluid.CPUPlace())
        for i, (ids, n) in enumerate(zip(data["ids"], data["lengths"]))
    }
    feed["label"] = data["label"]
    return feed


def torch_step(torch, w, batch):
    """A function running one training step of the PyTorch model, returning the loss."""
    import numpy as np

    nn = torch.nn
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    tables = nn.ModuleList()
    for i in range(SLOTS):
        bag = nn.EmbeddingBag(VOCAB, DIM, mode="sum", sparse=True)
        bag.weight.data = t(w[f"emb{i}"][0])
        tables.append(bag)
    layers = []
    for i in range(len(HIDDEN) + 1):
        weight, bias = w[f"fc{i}"]
        linear = nn.Linear(*weight.shape)
        linear.weight.data, linear.bias.data = t(weight.T), t(bias)
        layers += [linear, nn.ReLU()] if i < len(HIDDEN) else [linear]
    dense = nn.Sequential(*layers)
    sparse_opt = torch.optim.SparseAdam(list(tables.parameters()), lr=LR)
    # Fluid 1.8's sparse Adam bias-corrects with the next step's beta powers (its optimizer writes
    # Beta1PowOut, Beta1Pow's own variable, before the kernel reads it: docs/COMPAT.md), and pe's
    # lazy Adam computes what Fluid does; SparseAdam starting one step on does the same arithmetic
    for p in tables.parameters():
        sparse_opt.state[p].update(step=1, exp_avg=torch.zeros_like(p), exp_avg_sq=torch.zeros_like(p))
    dense_opt = torch.optim.Adam(dense.parameters(), lr=LR)
    data = batch_of(batch)
    inputs = [
        (t(ids), t(np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.int64)))
        for ids, n in zip(data["ids"], data["lengths"])
    ]
    label, loss_fn = t(data["label"].reshape(-1)), nn.CrossEntropyLoss()

    def step():
        sparse_opt.zero_grad()
        dense_opt.zero_grad()
        h = torch.cat([bag(ids, offsets) for bag, (ids, offsets) in zip(tables, inputs)], dim=1)
        loss = loss_fn(dense(h), label)
        loss.backward()
        sparse_opt.step()
        dense_opt.step()
        return loss.item()

    return step
