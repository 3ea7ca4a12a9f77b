"""``pe serve`` under load, beside the same server stack answering a constant and the same model in
onnxruntime in-process: rows/s and p50/p99 latency for 1-row and 64-row requests.

    python benchmarks/serve.py [--run RUN] [--seconds 5] [--max-wait-ms 2]

RUN is a run of configs/penguins.yaml (default: one trained here for 20 steps in a temporary
folder). Each case starts its server as a subprocess on a free 127.0.0.1 port (``pe serve RUN``;
``pe serve RUN --workers 2``; the constant: uvicorn + Starlette, reading the JSON body and
answering as many fixed predictions, the HTTP + JSON ceiling), then closed-loop client processes,
each with one keep-alive connection, send requests for --seconds (at most 20,000 each). The model in onnxruntime is the run exported with ``pe
export --onnx`` and run in this process on the same rows (no HTTP). Loopback only; every loop is
bounded in count and time. Prints a Markdown table.
"""

import argparse
import http.client
import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PE = [sys.executable, "-m", "pe_cli"]
ROW = {"island": "Biscoe", "bill_length_mm": 40.1, "bill_depth_mm": 18.9, "flipper_length_mm": 190}
ROW.update(body_mass_g=4300, sex="male")
ANSWER = {"species": "Adelie", "species_id": 0, "species_prob_Adelie": 0.72, "species_prob_Chinstrap": 0.15}
ANSWER["species_prob_Gentoo"] = 0.13
CASES = [(1, 1), (8, 1), (32, 1), (8, 64)]  # (clients, rows per request)

CONSTANT = r"""
import json, sys, uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
ANSWER = json.loads(sys.argv[2])
async def predict(request):
    rows = json.loads(await request.body())["rows"]
    body = json.dumps({"predictions": [ANSWER] * len(rows), "model": {"run": "constant"}})
    return Response(body, media_type="application/json")
async def health(request):
    return Response("{}", media_type="application/json")
app = Starlette(routes=[Route("/predict", predict, methods=["POST"]), Route("/health", health)])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(port, proc, seconds=300):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the server on port {port} did not start")


def _client(port, rows, seconds, out):
    body = json.dumps({"rows": [ROW] * rows}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies, errors, end = [], 0, time.monotonic() + seconds
    for _ in range(20000):
        if time.monotonic() > end:
            break
        start = time.perf_counter()
        conn.request("POST", "/predict", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        answer = json.loads(response.read())
        latencies.append(time.perf_counter() - start)
        errors += response.status != 200 or len(answer["predictions"]) != rows
    out.put((latencies, errors))


def _load(port, clients, rows, seconds):
    out = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=_client, args=(port, rows, seconds, out)) for _ in range(clients)]
    start = time.monotonic()
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    wall = time.monotonic() - start
    for p in procs:
        p.join(30)
    latencies = np.concatenate([r[0] for r in results]) * 1000
    return {
        "requests": len(latencies),
        "errors": sum(r[1] for r in results),
        "rows/s": len(latencies) * rows / wall,
        "p50": float(np.percentile(latencies, 50)),
        "p99": float(np.percentile(latencies, 99)),
    }


def _server(cmd, port):
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait(port, proc)
    return proc


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    return proc.wait(60)


def _onnx(run, folder, seconds):
    import onnxruntime

    path = os.path.join(folder, "model.onnx")
    subprocess.run(PE + ["export", "configs/penguins.yaml", "-c", run, "--onnx", path], cwd=REPO, check=True)
    session = onnxruntime.InferenceSession(path)
    out = {}
    for rows in (1, 64):
        feeds = {
            "measures": np.array([[40.1, 18.9, 190, 4300]] * rows, dtype=np.float32),
            "where": np.array([["Biscoe", "male"]] * rows, dtype=object),
        }
        latencies, end = [], time.monotonic() + seconds
        for _ in range(100000):
            if time.monotonic() > end:
                break
            start = time.perf_counter()
            session.run(None, feeds)
            latencies.append(time.perf_counter() - start)
        ms = np.array(latencies) * 1000
        out[rows] = {
            "rows/s": len(ms) * rows / ms.sum() * 1000,
            "p50": np.percentile(ms, 50),
            "p99": np.percentile(ms, 99),
        }
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", help="a run of configs/penguins.yaml (default: trained here, 20 steps)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--max-wait-ms", type=float, default=2.0)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="pe-serve-bench-")
    run = args.run or os.path.join(folder, "run")
    if not args.run:
        train = PE + ["train", "configs/penguins.yaml", "--out", run, "--max-steps", "20", "-q"]
        subprocess.run(train, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    rows = []
    port = _port()
    serve = PE + ["serve", run, "--port", str(port), "--log-level", "warning", "--max-wait-ms", str(args.max_wait_ms)]
    for name, cmd in (
        ("pe serve", serve),
        ("pe serve --workers 2", serve + ["--workers", "2"]),
        ("constant", [sys.executable, "-c", CONSTANT, str(port), json.dumps(ANSWER)]),
    ):
        proc = _server(cmd, port)
        for clients, size in CASES:
            rows.append((name, clients, size, _load(port, clients, size, args.seconds)))
        _stop(proc)
    onnx = _onnx(run, folder, args.seconds)
    print("| server | clients | rows/request | requests | errors | rows/s | p50 ms | p99 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for name, clients, size, r in rows:
        print(
            f"| {name} | {clients} | {size} | {r['requests']} | {r['errors']} | {r['rows/s']:,.0f} | "
            f"{r['p50']:.2f} | {r['p99']:.2f} |"
        )
    for size, r in onnx.items():
        print(f"| onnxruntime in-process | 1 | {size} | - | - | {r['rows/s']:,.0f} | {r['p50']:.2f} | {r['p99']:.2f} |")


if __name__ == "__main__":
    main()
