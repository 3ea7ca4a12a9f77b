"""Reads the files the test writes (MNIST IDX, a CIFAR-10 archive, a housing file) through
paddle.vision.datasets / paddle.text.datasets and prints what a program sees, as JSON. Runs unchanged on
Paddle 2.6.2 (its output: datasets_paddle.json) and under pe fluid (tests/paddle/test_paddle_datasets.py)."""
import json
import numpy as np
import paddle
from paddle.vision.datasets import MNIST, Cifar10
from paddle.text.datasets import UCIHousing
out = {}
for backend in ("cv2", "pil"):
    ds = MNIST(image_path="imgs.gz", label_path="labels.gz", mode="train", backend=backend)
    img, label = ds[2]
    out["mnist_" + backend] = [len(ds), str(np.array(img).dtype), list(np.array(img).shape), float(np.array(img).sum()),
                               label.tolist(), str(label.dtype)]
    c = Cifar10(data_file="cifar-10-python.tar.gz", mode="train", backend=backend)
    img, label = c[0]
    out["cifar_" + backend] = [len(c), str(np.array(img).dtype), list(np.array(img).shape), float(np.array(img).sum()),
                               label.tolist(), [int(c[i][1]) for i in range(len(c))]]
for mode in ("train", "test"):
    h = UCIHousing(data_file="housing.data", mode=mode)
    x, y = h[1]
    out["housing_" + mode] = [len(h), str(x.dtype), list(x.shape), round(float(x.sum()), 5), round(float(y[0]), 4)]
loader = paddle.io.DataLoader(MNIST(image_path="imgs.gz", label_path="labels.gz", backend="cv2"), batch_size=2)
batches = [[list(np.array(b).shape) for b in batch] for batch in loader]
out["loader"] = [len(batches), batches[0]]
print(json.dumps(out, sort_keys=True))
