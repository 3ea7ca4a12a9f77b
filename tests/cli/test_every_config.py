"""Every shipped config through every command: each ``configs/*.yaml`` is trained a few steps on a
small slice of its data, then evaluated, used to predict, exported both ways (ONNX and Fluid's
inference directory), the export run by ``pe infer``, shown by ``pe summary`` (config and run) and
``pe graph``, and served by ``pe serve``, whose answers equal ``pe predict``'s on the same rows
(tests/cli/serving.py; not the two configs whose data are image files, which pe serve refuses to
read), each a real ``pe`` subprocess. Any command that fails, or says "internal error", fails
the test with the config, the command and what it printed. Two configs run at a time (the chains are
independent), each command on at most 64 samples."""

import concurrent.futures
import gzip
import os

import numpy as np
import pytest
import yaml

from tests.cli import serving
from tests.cli.test_helpers import REPO, pe

CONFIGS = sorted(f for f in os.listdir(os.path.join(REPO, "configs")) if f.endswith((".yaml", ".yml")))
SAMPLES = 64


def _idx_images(path, n):
    """The first ``n`` images of an IDX file (gzip) as uint8 [n, rows, cols]."""
    with gzip.open(path, "rb") as f:
        head = f.read(16)
        rows, cols = int.from_bytes(head[8:12], "big"), int.from_bytes(head[12:16], "big")
        return np.frombuffer(f.read(n * rows * cols), dtype=np.uint8).reshape(n, rows, cols)


def _multislot(path, feeds, n):
    """The first ``n`` lines of a MultiSlot file as {feed: array}, a sparse slot ragged."""
    values = {f: [] for f in feeds}
    with open(path) as f:
        for line in list(f)[:n]:
            fields, at = line.split(), 0
            for feed in feeds:
                count = int(fields[at])
                values[feed].append([float(v) for v in fields[at + 1 : at + 1 + count]])
                at += 1 + count
    out = {}
    for feed, rows in values.items():
        if len({len(r) for r in rows}) > 1:
            out[feed] = np.array([[v] for r in rows for v in r], dtype=np.int64)
            out[feed + "_lengths"] = np.array([len(r) for r in rows], dtype=np.int64)
        else:
            out[feed] = np.array(rows, dtype=np.float32)
    return out


def _data_file(config, tmp):
    """A file (or folder) of at most SAMPLES samples of the config's held-out data for ``--data``."""
    with open(os.path.join(REPO, "configs", config)) as f:
        cfg = yaml.safe_load(f)
    here = os.path.join(REPO, "configs")
    src = cfg["data"].get("eval") or cfg["data"]["train"]
    path = os.path.normpath(os.path.join(here, src["path"]))
    fmt = src["format"]
    if fmt in ("csv", "tsv", "jsonl", "folders"):
        return path
    if fmt == "mnist":
        out = os.path.join(tmp, "images.npy")
        np.save(out, _idx_images(os.path.join(path, "t10k-images-idx3-ubyte.gz"), SAMPLES))
        return out
    out = os.path.join(tmp, "samples.npz")
    if fmt == "npz":
        z = np.load(path)
        arrays = {}
        for key in z.files:
            if key + "_lengths" in z.files:
                lengths = z[key + "_lengths"][:SAMPLES]
                arrays[key], arrays[key + "_lengths"] = z[key][: int(lengths.sum())], lengths
            elif not key.endswith("_lengths"):
                arrays[key] = z[key][:SAMPLES]
        np.savez(out, **arrays)
    elif fmt == "multislot":
        model = yaml.safe_load(open(os.path.normpath(os.path.join(here, cfg["model"]))))
        first = sorted(os.listdir(path))[0]
        np.savez(out, **_multislot(os.path.join(path, first), list(model["feeds"]), SAMPLES))
    else:
        raise AssertionError(f"{config}: no --data file for format {fmt}; teach this test")
    return out


def _limits(config):
    """Overrides that keep a config's sources to SAMPLES samples (tables and folders stay whole:
    they are small, and a table sorted by class needs its every class)."""
    with open(os.path.join(REPO, "configs", config)) as f:
        data = yaml.safe_load(f)["data"]
    return [
        f"data.{which}.limit={SAMPLES}"
        for which in ("train", "eval")
        if data.get(which) and data[which]["format"] not in ("csv", "tsv", "jsonl", "folders")
    ]


def _walk(config, tmp):
    """Runs the commands on one config; returns the failures as text (empty when all passed)."""
    tmp = os.path.join(tmp, config.rsplit(".", 1)[0])
    os.makedirs(tmp)
    path, run = os.path.join("configs", config), os.path.join(tmp, "run")
    limits = _limits(config)
    data = _data_file(config, tmp)
    commands = [
        ["train", path, *limits, "--out", run, "--max-steps", "2", "-q", "--threads", "1"],
        ["eval", path, *limits, "-c", run, "-o", os.path.join(tmp, "eval.json"), "--threads", "1"],
        ["predict", path, "-c", run, "--data", data, "-o", os.path.join(tmp, "pred.csv"), "-q", "--threads", "1"],
        [
            "export",
            path,
            "-c",
            run,
            "--onnx",
            os.path.join(tmp, "model.onnx"),
            "--inference-dir",
            os.path.join(tmp, "inference"),
            "--threads",
            "1",
        ],
        [
            "infer",
            os.path.join(tmp, "inference"),
            "--data",
            data,
            "-o",
            os.path.join(tmp, "infer.npz"),
            "--threads",
            "1",
        ],
        ["summary", run],
        ["summary", path],
        ["graph", path, "-o", os.path.join(tmp, "graph.dot")],
    ]
    for args in commands:
        proc = pe(*args, timeout=240)
        said = proc.stdout + proc.stderr
        if proc.returncode != 0 or "internal error" in said:
            return f"{config}: pe {' '.join(args[:2])} exited {proc.returncode}:\n{said[-1500:]}"
    if config not in serving.IMAGE_FILES:
        try:
            serving.served_as_predicted(run, data, os.path.join(tmp, "pred.csv"))
        except AssertionError as e:
            return f"{config}: pe serve: {e}"
    return ""


@pytest.mark.parametrize(
    "pair",
    [CONFIGS[i : i + 2] for i in range(0, len(CONFIGS), 2)],
    ids=lambda pair: "+".join(c.rsplit(".", 1)[0] for c in pair),
)
def test_every_config_through_every_command(pair, tmp_path):
    with concurrent.futures.ThreadPoolExecutor(len(pair)) as pool:
        failures = [f for f in pool.map(lambda c: _walk(c, str(tmp_path)), pair) if f]
    assert not failures, "\n\n".join(failures)
