"""A real ``pe serve`` subprocess on a free loopback port, talked to over HTTP with urllib, for
tests/cli/test_serve.py and tests/cli/test_every_config.py (every shipped config is served)."""

import csv
import json
import math
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import numpy as np

from tests.cli.test_helpers import PE, REPO

ROWS = 12
# every shipped config is served but the two whose data are image files (mnist_png*: pe serve refuses an image
# feed, it reads no file a request names): rows of a table, arrays, sequences, sparse slots
IMAGE_FILES = ("mnist_png.yaml", "mnist_png_features.yaml")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A ``pe serve`` subprocess, ready once /health answers 200 (within 180 s)."""

    def __init__(self, *args, log=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log or os.devnull
        cmd = PE + ["serve", *map(str, args), "--port", str(self.port), "--threads", "1"]
        env = dict(os.environ)
        env.pop("PE_DEBUG", None)
        with open(self.log, "w") as err:
            self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err, env=env)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"pe serve exited {self.proc.returncode}: {open(self.log).read()[-2000:]}")
            try:
                if get(self.url + "/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise AssertionError("pe serve did not answer /health within 180 s")

    def stop(self, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.stop()


def call(request, timeout=60):
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def get(url):
    status, body = call(urllib.request.Request(url), timeout=5)
    return status, body


def post(url, body, content_type="application/json", timeout=60):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, text = call(urllib.request.Request(url + "/predict", data, {"Content-Type": content_type}), timeout)
    return status, json.loads(text)


def request_rows(data, feed):
    """ROWS request rows of a pe predict --data file: a table's rows as written (text fields), an
    array's samples under the feed's name, an .npz's feeds (sequences as lists of steps)."""
    if data.endswith(".csv"):
        with open(data, newline="") as f:
            return [dict(r) for r, _ in zip(csv.DictReader(f), range(ROWS))]
    if data.endswith(".npy"):
        return [{feed: a.tolist()} for a in np.load(data)[:ROWS]]
    z = np.load(data)
    rows = [{} for _ in range(ROWS)]
    for key in z.files:
        if key.endswith("_lengths"):
            continue
        if key + "_lengths" in z.files:
            ends = np.cumsum(z[key + "_lengths"])
            parts = np.split(z[key], ends[:-1])
        else:
            parts = list(z[key])
        for row, part in zip(rows, parts):
            row[key] = np.asarray(part).tolist()
    return rows


def same_row(served, written):
    """A served prediction equals pe predict's CSV row: the same columns, text alike, numbers to the
    CSV's 6 significant digits."""
    assert list(served) == list(written)
    for key, value in written.items():
        if isinstance(served[key], str):
            assert served[key] == value, key
        else:
            assert math.isclose(served[key], float(value), rel_tol=2e-5, abs_tol=1e-6), (key, served[key], value)


def served_as_predicted(run, data, predicted):
    """Serves ``run`` and posts the first ROWS rows of ``data``: the answers equal ``pe predict``'s rows
    (``predicted``, the CSV it wrote), together and a row alone; the server exits 0 on SIGTERM."""
    with open(predicted, newline="") as f:
        written = list(csv.DictReader(f))[:ROWS]
    with Server(run) as server:
        meta = json.loads(get(server.url + "/metadata")[1])
        rows = request_rows(data, meta["inputs"][0]["feed"])
        status, body = post(server.url, {"rows": rows})
        assert status == 200, body
        assert body["model"]["run"] == run and body["model"]["step"] == 2
        assert len(body["predictions"]) == len(written) == ROWS
        for served, row in zip(body["predictions"], written):
            same_row(served, row)
        status, one = post(server.url, {"rows": rows[3:4]})  # a row alone: the same answer
        same_row(one["predictions"][0], written[3])
        assert server.stop() == 0
