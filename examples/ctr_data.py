"""Writes a CTR-like data set in the MultiSlot format of seed 004's AsyncExecutor:

    python examples/ctr_data.py OUT_DIR [--files 4] [--lines 2000] [--seed 0]

Each line is an ad impression: ``ids`` (a sparse slot: 1-12 feature ids out of 1,000, drawn from
three fields: user, ad, context), ``dense`` (2 floats: position and a noisy bid) and ``label`` (1 if
clicked). The click probability is a logistic function of the sum of per-id weights (some ids make
clicks likely, others unlikely) and the position, so a model that embeds and pools the ids can learn
it. Also writes ``data.proto``, the DataFeedDesc of these files. Deterministic for a given seed.
"""

import argparse
import os

import numpy as np

VOCAB = 1000
DESC = """name: "MultiSlotDataFeed"
batch_size: 32
multi_slot_desc {
  slots { name: "ids" type: "uint64" is_dense: false is_used: true }
  slots { name: "dense" type: "float" is_dense: true is_used: true }
  slots { name: "label" type: "uint64" is_dense: true is_used: true }
}
"""


def lines(rng, n, weights):
    for _ in range(n):
        k = int(rng.integers(1, 13))
        ids = rng.integers(0, VOCAB, k)
        position = float(rng.integers(1, 6))
        bid = float(rng.normal(1.0, 0.3))
        score = weights[ids].sum() - 0.4 * (position - 3)
        click = int(rng.random() < 1 / (1 + np.exp(-score)))
        yield f"{k} {' '.join(map(str, ids))} 2 {position:.0f} {bid:.4f} 1 {click}\n"


def write(out_dir, files=4, n=2000, seed=0):
    """Writes OUT_DIR/part-0 ... part-(files-1) and OUT_DIR/data.proto; returns the file paths."""
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    weights = rng.normal(0, 1.2, VOCAB) * (rng.random(VOCAB) < 0.3)  # 30% of ids matter
    paths = []
    for f in range(files):
        path = os.path.join(out_dir, f"part-{f}")
        with open(path, "w") as out:
            out.writelines(lines(rng, n, weights))
        paths.append(path)
    with open(os.path.join(out_dir, "data.proto"), "w") as out:
        out.write(DESC)
    return paths


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for path in write(args.out_dir, args.files, args.lines, args.seed):
        print(path)
