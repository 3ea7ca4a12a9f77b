"""The models of gpu.py, in pe (the Fluid API) and in PyTorch, and the steps that train them.

  mlp          784-512-512-10, SGD (lr 0.01)
  lenet        LeNet-5 on 28x28 images, SGD
  resnet       bench_models.py's small ResNet: a 3x3 conv-bn-relu stem, 3 stages (16, 32, 64 channels)
               of 2 basic blocks (conv-bn-relu-conv-bn, a residual add, relu; a 1x1 conv-bn shortcut
               where a stage halves the size), global average pooling, fc 10; 32x32x3 images; SGD
  transformer  one_device_threads.py's Transformer of issue 79: token ids [batch, 64] (vocabulary
               1000) -> embedding 128 -> sinusoidal positions -> 2 post-norm encoder layers (4 heads,
               feed-forward 512, relu, dropout 0) -> the mean over the tokens -> fc 2; Adam (lr 0.001)

PyTorch's twins have the same layers and shapes (their own initial weights: these rows time steps, they
do not compare losses). A PyTorch step is eager, or the whole step (forward, backward, optimizer)
captured once as a CUDA graph and replayed, as PyTorch's docs capture a whole network: static input
tensors the batch is copied into, warm-up iterations on a side stream, gradients set to None before
capture, and a capturable optimizer (Adam(capturable=True); SGD has no step count on the host).
"""

import numpy as np

LR = 0.01


def pe_program(model, n):
    """(main, startup, loss, feed) for ``model`` at batch ``n``."""
    import pe_cli.fluid as fluid

    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        if model == "transformer":
            import one_device_threads

            loss, optimizer, make_feed = one_device_threads._transformer()
            feed = make_feed(np.random.default_rng(0), n)
        else:
            shape = {"lenet": [1, 28, 28], "resnet": [3, 32, 32]}.get(model, [784])
            image = fluid.layers.data(name="image", shape=shape)
            label = fluid.layers.data(name="label", shape=[1], dtype="int64")
            logits = _pe_logits(fluid, model, image)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
            optimizer = fluid.optimizer.SGD(learning_rate=LR)
            x, y = batch(model, n)
            feed = {"image": x, "label": y}
        optimizer.minimize(loss)
    return main, startup, loss, feed


def _pe_logits(fluid, model, image):
    if model == "resnet":
        import bench_models

        return bench_models._PE_NETS["resnet"](fluid, {}, image)
    if model == "lenet":
        conv1 = fluid.layers.conv2d(image, num_filters=6, filter_size=5, padding=2, act="relu")
        pool1 = fluid.layers.pool2d(conv1, pool_size=2, pool_stride=2)
        conv2 = fluid.layers.conv2d(pool1, num_filters=16, filter_size=5, act="relu")
        pool2 = fluid.layers.pool2d(conv2, pool_size=2, pool_stride=2)
        fc1 = fluid.layers.fc(pool2, size=120, act="relu")
        hidden = fluid.layers.fc(fc1, size=84, act="relu")
    else:
        hidden = fluid.layers.fc(image, size=512, act="relu")
        hidden = fluid.layers.fc(hidden, size=512, act="relu")
    return fluid.layers.fc(hidden, size=10)


def batch(model, n, seed=0):
    """(inputs, labels [n, 1]) as numpy arrays."""
    rng = np.random.default_rng(seed)
    if model == "transformer":
        import one_device_threads as odt

        return rng.integers(0, odt.VOCAB, (n, odt.SEQ)), rng.integers(0, 2, (n, 1))
    shape = {"lenet": (n, 1, 28, 28), "resnet": (n, 3, 32, 32)}.get(model, (n, 784))
    return rng.standard_normal(shape).astype("float32"), rng.integers(0, 10, (n, 1)).astype("int64")


# -- PyTorch --------------------------------------------------------------------------------------------


def torch_model(torch, model):
    nn = torch.nn
    if model == "resnet":
        import bench_models

        return bench_models._torch_net(torch, "resnet", bench_models.initial_weights("resnet"))
    if model == "transformer":
        return _torch_transformer(torch)
    if model == "lenet":
        return nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2),
            nn.ReLU(),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(6, 16, 5),
            nn.ReLU(),
            nn.MaxPool2d(2, 2),
            nn.Flatten(),
            nn.Linear(400, 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
            nn.Linear(84, 10),
        )
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def _torch_transformer(torch):
    import one_device_threads as odt

    nn = torch.nn
    half = odt.D_MODEL // 2
    angle = np.arange(odt.SEQ, dtype=np.float64)[:, None] / np.power(10000.0, np.arange(half) / (half - 1))
    positions = torch.from_numpy(np.concatenate([np.sin(angle), np.cos(angle)], axis=1).astype(np.float32))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(odt.VOCAB, odt.D_MODEL)
            self.layers = nn.ModuleList(
                [
                    nn.TransformerEncoderLayer(odt.D_MODEL, odt.HEADS, odt.FFN, dropout=0.0, batch_first=True)
                    for _ in range(2)
                ]
            )
            self.fc = nn.Linear(odt.D_MODEL, 2)
            self.register_buffer("positions", positions)

        def forward(self, ids):
            h = self.embed(ids) + self.positions
            for layer in self.layers:
                h = layer(h)
            return self.fc(h.mean(dim=1))

    return Net()


def torch_step(torch, model, n, graphed=False):
    """One PyTorch CUDA training step as a function returning the loss (a float): batch copied in,
    forward, backward, optimizer, loss read back; eager, or replayed as one captured CUDA graph."""
    torch.manual_seed(1)
    net = torch_model(torch, model).cuda()
    params = net.parameters()
    opt = (
        torch.optim.Adam(params, lr=0.001, capturable=graphed)
        if model == "transformer"
        else torch.optim.SGD(params, lr=LR)
    )
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = batch(model, n)
    x, y = torch.from_numpy(x), torch.from_numpy(y.reshape(-1))
    if not graphed:

        def step():
            xd, yd = x.to("cuda"), y.to("cuda")
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(xd), yd)
            loss.backward()
            opt.step()
            return loss.item()

        return step
    static_x, static_y = x.cuda(), y.cuda()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up before capture, on a side stream
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            loss_fn(net(static_x), static_y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        static_loss = loss_fn(net(static_x), static_y)
        static_loss.backward()
        opt.step()

    def replay():
        static_x.copy_(x)
        static_y.copy_(y)
        graph.replay()
        return static_loss.item()

    return replay
