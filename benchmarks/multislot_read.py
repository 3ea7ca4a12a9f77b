"""How fast the MultiSlot reader (pe_cli/data/multislot.py) parses: lines and MB per second on a
generated file of CTR-like samples (1-19 sparse ids, 4 dense floats, a label per line).

    .venv/bin/python benchmarks/multislot_read.py [--lines 100000]
"""

import argparse
import os
import tempfile
import time

import numpy as np

from pe_cli.data.datafeed_desc import DataFeedDesc
from pe_cli.data.multislot import MultiSlotReader

DESC = """batch_size: 256
multi_slot_desc {
  slots { name: "ids" type: "uint64" is_used: true }
  slots { name: "dense" type: "float" is_dense: true is_used: true }
  slots { name: "label" type: "uint64" is_dense: true is_used: true }
}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "desc.proto"), "w") as f:
            f.write(DESC)
        lines = []
        for i in range(args.lines):
            k = int(rng.integers(1, 20))
            lines.append(f"{k} {' '.join(map(str, rng.integers(0, 10**6, k)))} 4 0.1 0.2 0.3 0.4 1 {i % 2}\n")
        data = os.path.join(d, "part-0")
        with open(data, "w") as f:
            f.write("".join(lines))
        reader = MultiSlotReader(DataFeedDesc(os.path.join(d, "desc.proto")))
        best = None
        for _ in range(3):
            start = time.perf_counter()
            n = sum(len(batch["label"]) for batch in reader.batches(data))
            took = time.perf_counter() - start
            best = took if best is None else min(best, took)
        print(
            f"{n} lines, {os.path.getsize(data) / 1e6:.1f} MB: {n / best:,.0f} lines/s, "
            f"{os.path.getsize(data) / best / 1e6:.1f} MB/s (best of 3)"
        )


if __name__ == "__main__":
    main()
