"""Writes data/mnist_png/{train,eval}/<digit>/<index>.png from the bundled MNIST IDX files
(data/mnist): an image folder of class folders, for configs/mnist_png.yaml (data.preprocessing's
image and label kinds, through Pillow: pip install 'pe-cli[images]').

    python data/mnist_png/make_mnist_png.py [--per-class 20]

train/ takes the first PER_CLASS images of each digit among the first 8,000 (pe's MNIST training
split), eval/ the first PER_CLASS / 2 of each digit among the last 2,000 (its held-out split), so
the two never share an image. <index> is the image's position in the IDX file. Deterministic.
"""

import argparse
import os
import sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
from pe_cli.data.idx import load_mnist  # noqa: E402


def write(split, offset, per_class, out):
    images, labels = load_mnist(os.path.join(HERE, "..", "mnist"), split)
    for digit in range(10):
        folder = os.path.join(out, str(digit))
        os.makedirs(folder, exist_ok=True)
        for i in np.flatnonzero(labels == digit)[:per_class]:
            Image.fromarray(images[i]).save(os.path.join(folder, f"{offset + i:05d}.png"), optimize=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=20)
    parser.add_argument("--out", default=HERE, help="the folder to write train/ and eval/ into")
    args = parser.parse_args()
    write("train", 0, args.per_class, os.path.join(args.out, "train"))
    write("eval", 8000, max(1, args.per_class // 2), os.path.join(args.out, "eval"))
    print(f"wrote {args.out}/train and {args.out}/eval")


if __name__ == "__main__":
    main()
