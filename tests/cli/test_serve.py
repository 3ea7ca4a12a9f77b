"""``pe serve``, the real server: a ``pe serve`` subprocess on a free loopback port, talked to over
HTTP with urllib (tests/cli/serving.py). Its answers equal ``pe infer``'s for a model Paddle 2.6.2
saved (and ``pe predict``'s for every shipped config: tests/cli/test_every_config.py); every error status; many
concurrent requests run in fewer batches; SIGTERM under load answers every accepted request and
exits 0. Only 127.0.0.1, every loop bounded in count and time."""

import concurrent.futures
import csv
import json
import os
import signal
import socket
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

from tests.cli.serving import ROWS, Server, call, get, post, request_rows, same_row
from tests.cli.test_every_config import _data_file, _limits
from tests.cli.test_helpers import REPO, pe

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

LENET = os.path.join(REPO, "tests", "data", "paddle26_saved", "lenet")


def _trained(config, tmp):
    tmp = os.path.join(tmp, config[:-5])
    os.makedirs(tmp)
    run = os.path.join(tmp, "run")
    proc = pe("train", f"configs/{config}", *_limits(config), "--out", run, "--max-steps", "2", "-q", "--threads", "1")
    assert proc.returncode == 0, proc.stderr[-1500:]
    data = _data_file(config, tmp)
    out = os.path.join(tmp, "pred.csv")
    proc = pe("predict", f"configs/{config}", "-c", run, "--data", data, "-o", out, "-q", "--threads", "1")
    assert proc.returncode == 0, proc.stderr[-1500:]
    with open(out, newline="") as f:
        return run, data, list(csv.DictReader(f))[:ROWS]


class _Runs(dict):
    """config -> (run, data file, pe predict's first ROWS rows), each trained when first asked for."""

    def __init__(self, tmp):
        super().__init__()
        self.tmp = tmp

    def __missing__(self, config):
        self[config] = _trained(config, self.tmp)
        return self[config]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return _Runs(str(tmp_path_factory.mktemp("serve")))


PENGUIN = {"island": "Biscoe", "bill_length_mm": 40.1, "bill_depth_mm": 18.9, "flipper_length_mm": 190}
PENGUIN.update(body_mass_g=4300, sex="male")


def test_every_error_status_and_a_later_answer_unchanged(runs, tmp_path):
    run = runs["penguins.yaml"][0]
    with Server(run, "--max-body-bytes", 3000) as server:
        good = post(server.url, {"rows": [PENGUIN]})
        assert good[0] == 200
        cases = [
            (post(server.url, b"{not json"), 400, "not valid JSON"),
            (post(server.url, [1, 2]), 400, "not an object"),
            (post(server.url, {"row": [PENGUIN]}), 400, '"rows"'),
            (post(server.url, {"rows": [{"island": "Dream"}]}), 400, "no column 'bill_length_mm'"),
            (
                post(server.url, {"rows": [dict(PENGUIN, bill_depth_mm="deep")]}),
                400,
                "'deep' of column 'bill_depth_mm'",
            ),
            (post(server.url, {"rows": [PENGUIN] * 40}), 413, "--max-body-bytes 3,000"),
            (post(server.url, {"rows": [PENGUIN]}, "text/plain"), 415, "application/json"),
        ]
        for (status, body), want, says in cases:
            assert status == want and says in body["error"] and "\n" not in body["error"], (status, body)
        status, text = call(urllib.request.Request(server.url + "/nowhere"))
        assert status == 404 and "error" in json.loads(text)
        status, text = call(urllib.request.Request(server.url + "/predict"))  # GET
        assert status == 405 and "error" in json.loads(text)
        notes = post(server.url, {"rows": [dict(PENGUIN, island="Atlantis", bill_length_mm=None)]})[1]["notes"]
        assert notes == [
            "column 'bill_length_mm': 1 missing value filled with " + notes[0].split("filled with ")[1],
            "column 'island': 1 value not seen in training ('Atlantis') read as <unknown>",
        ]
        reordered = dict(reversed(list(PENGUIN.items())))
        assert post(server.url, {"rows": [reordered]}) == good  # keys in any order; the bad ones changed nothing
        meta = json.loads(get(server.url + "/metadata")[1])
        assert meta["outputs"][0]["classes"] == ["Adelie", "Chinstrap", "Gentoo"]
        metrics = get(server.url + "/metrics")[1].decode()
        assert 'pe_requests_total{path="/predict",status="400"} 5' in metrics
        assert "pe_request_seconds_bucket" in metrics and "pe_batch_rows_count" in metrics
        assert server.stop() == 0
    with Server(run, "--max-queue", 1, "--max-wait-ms", 1500, "--timeout", 0.5) as server:
        slow = socket.create_connection(("127.0.0.1", server.port), timeout=10)  # a request still being read:
        slow.sendall(b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
        slow.sendall(b"Content-Length: 1000\r\n\r\n{")  # the batch waits 1.5 s for it
        time.sleep(0.3)
        with slow, concurrent.futures.ThreadPoolExecutor(1) as pool:
            first = pool.submit(post, server.url, {"rows": [PENGUIN]})
            time.sleep(0.2)
            full = post(server.url, {"rows": [PENGUIN]})
            assert full[0] == 503 and "queue is full" in full[1]["error"], full
            late = first.result(30)
            assert late[0] == 503 and "--timeout 0.5" in late[1]["error"], late
        assert server.stop() == 0


def test_concurrent_requests_run_in_fewer_batches(runs):
    run, data, written = runs["penguins.yaml"]
    rows = request_rows(data, None)
    with Server(run, "--max-wait-ms", 100) as server:
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(lambda i: post(server.url, {"rows": [rows[i % ROWS]]}), range(3 * ROWS)))
        for i, (status, body) in enumerate(answers):
            assert status == 200
            same_row(body["predictions"][0], written[i % ROWS])
        metrics = get(server.url + "/metrics")[1].decode()
        batches = int(next(line.split()[1] for line in metrics.splitlines() if line.startswith("pe_batch_rows_count")))
        assert batches < 3 * ROWS, metrics
        assert server.stop() == 0


def test_sigterm_under_load_answers_every_accepted_request(runs, tmp_path):
    run = runs["penguins.yaml"][0]
    log = str(tmp_path / "serve.log")
    server = Server(run, "--max-wait-ms", 20, log=log)
    outcomes, stop_at = [], time.monotonic() + 60

    def client():
        for _ in range(400):  # bounded: 400 requests or 60 s, or the server gone
            if time.monotonic() > stop_at:
                return
            try:
                outcomes.append(post(server.url, {"rows": [PENGUIN]}, timeout=30)[0])
                if outcomes[-1] == 503:
                    return  # shutting down: a client backs off
            except urllib.error.URLError as e:
                if isinstance(e.reason, ConnectionRefusedError):
                    return  # the port is closed: not accepted
                outcomes.append(f"lost: {e.reason!r}")
                return
            except OSError as e:
                outcomes.append(f"lost: {e!r}")
                return

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        clients = [pool.submit(client) for _ in range(8)]
        time.sleep(1.5)
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(40) == 0
        assert time.monotonic() - started < 40
        for c in clients:
            c.result(60)
    assert outcomes and all(o in (200, 503) for o in outcomes), [o for o in outcomes if o not in (200, 503)][:3]
    with open(log) as f:
        logged = sum(" POST /predict 200 " in line for line in f)
    assert logged == outcomes.count(200) > 0


def test_a_paddle_saved_model_answers_as_pe_infer(tmp_path):
    record = np.load(os.path.join(LENET, "record.npz"))
    x = record["in:x0"]
    np.savez(tmp_path / "x.npz", x0=x)
    out = tmp_path / "infer.npz"
    proc = pe("infer", os.path.join(LENET, "model"), "--data", tmp_path / "x.npz", "-o", out, "--threads", "1")
    assert proc.returncode == 0, proc.stderr
    inferred = np.load(out)
    with Server(os.path.join(LENET, "model"), "--workers", 2) as server:
        status, body = post(server.url, {"inputs": {"x0": x.tolist()}})
        assert status == 200, body
        assert sorted(body["outputs"]) == sorted(inferred.files)
        for name in inferred.files:
            np.testing.assert_allclose(np.array(body["outputs"][name]), inferred[name], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.array(body["outputs"][inferred.files[0]]), record["out:0"], rtol=1e-4, atol=1e-5)
        status, body = post(server.url, {"inputs": {"x0": [[1.0, 2.0]]}})
        assert status == 400 and "x0" in body["error"], body
        status, body = post(server.url, {"inputs": {}})
        assert status == 400 and "lack the feed 'x0'" in body["error"], body
        meta = json.loads(get(server.url + "/metadata")[1])
        assert meta["inputs"][0]["name"] == "x0" and meta["inputs"][0]["dtype"] == "float32"
        assert server.stop() == 0
