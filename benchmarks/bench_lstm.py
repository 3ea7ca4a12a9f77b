"""The LSTM row of bench_cpu.py (bench_models.py's ``lstm``) in PyTorch: nn.LSTM with pe's weights
(dynamic_lstm's [in, 4 x hidden] blocks, gates reordered), over the sequences packed once."""

FEATURES, HIDDEN = 64, 128
# gate blocks of Fluid's (candidate, input, forget, output) in PyTorch's (input, forget, cell, output)
TORCH_GATES = (1, 2, 0, 3)


def torch_gates(a, order=TORCH_GATES):
    """``a``'s 4 gate blocks (last axis) in PyTorch's order; ``order``: the index of each of PyTorch's
    gates among ``a``'s blocks."""
    import numpy as np

    blocks = np.split(a, 4, axis=-1)
    return np.ascontiguousarray(np.concatenate([blocks[i] for i in order], axis=-1))


def packed(torch, x, lengths):
    import numpy as np

    padded = np.zeros((len(lengths), int(lengths.max()), x.shape[1]), np.float32)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    for i, n in enumerate(lengths):
        padded[i, :n] = x[starts[i] : starts[i + 1]]
    return torch.nn.utils.rnn.pack_padded_sequence(
        torch.from_numpy(padded), torch.from_numpy(lengths), batch_first=True, enforce_sorted=False
    )


def torch_net(torch, w):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(FEATURES, HIDDEN)
            self.lstm.weight_ih_l0.data = torch.from_numpy(torch_gates(w["proj"][0]).T.copy())
            self.lstm.bias_ih_l0.data = torch.from_numpy(torch_gates(w["proj"][1]))
            self.lstm.weight_hh_l0.data = torch.from_numpy(torch_gates(w["lstm"][0]).T.copy())
            self.lstm.bias_hh_l0.data = torch.from_numpy(torch_gates(w["lstm"][1]).reshape(-1))
            self.fc = nn.Linear(HIDDEN, 10)
            self.fc.weight.data = torch.from_numpy(w["fc0"][0].T.copy())
            self.fc.bias.data = torch.from_numpy(w["fc0"][1].copy())

        def forward(self, packed):
            _, (h, _) = self.lstm(packed)
            return self.fc(h[0])

    return Net()
