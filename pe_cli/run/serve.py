"""``pe serve``: a model answering HTTP requests, on uvicorn (the ASGI server) and Starlette (the
app: serve_app.py). The model is loaded, and run once on zeros at one row and at --max-batch rows so
that its kernels are compiled and its steps planned, before the port opens: the first request is as
fast as the rest. SIGTERM and SIGINT answer new requests 503 for half a second, then close the port,
answer every request accepted already (within --timeout), and exit 0. ``--workers N`` starts N processes sharing the port, each loading the model.
"""

import contextlib
import json
import logging
import os
import signal
import sys
import threading
from dataclasses import asdict, dataclass

import uvicorn
from uvicorn.supervisors import Multiprocess

from ..config import load_config
from .serve_app import make_app
from .serve_model import DirModel, RowModel, is_model_dir, run_config

_ENV = "PE_SERVE_SETTINGS"  # how --workers' processes get the command's settings
STATE = {}  # this process's server state: "closing" once a signal asked it to stop
LAME_DUCK = 0.5  # seconds between a signal and the port's closing


@dataclass
class Settings:
    target: str
    checkpoint: str = None
    overrides: tuple = ()
    output: str = None
    model_filename: str = None
    params_filename: str = None
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    max_batch: int = 64
    max_wait_ms: float = 2.0
    max_queue: int = 256
    max_body_bytes: int = 4 * 1024 * 1024
    timeout: float = 30.0
    log_level: str = "info"


def load_model(settings):
    """The served model (serve_model.py's RowModel or DirModel), run once on zeros (see above)."""
    s = settings
    if is_model_dir(s.target, s.model_filename, s.params_filename):
        model = DirModel(s.target, s.model_filename, s.params_filename)
    else:
        cfg, checkpoint = run_config(s.target, s.checkpoint, list(s.overrides), load_config)
        model = RowModel(cfg, checkpoint, s.output)
    for n in sorted({1, s.max_batch}):
        with contextlib.suppress(Exception):  # a model that takes no zeros compiles on its first request
            model.run(model.warm_feeds(n))
    return model


class _Server(uvicorn.Server):
    """uvicorn's server, whose signal handlers mark the state closing (new requests and /health get
    503: a client backs off, a load balancer takes the server out), close the port LAME_DUCK seconds
    later (uvicorn then answers every accepted request) and return rather than re-raise the
    signal: exit status 0. A second signal stops at once."""

    @contextlib.contextmanager
    def capture_signals(self):
        handled = (signal.SIGINT, signal.SIGTERM)
        originals = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in originals.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig, frame):
        if STATE.get("closing"):  # a second signal: stop now
            super().handle_exit(sig, frame)
            return
        STATE["closing"] = True  # new requests get 503 for LAME_DUCK seconds, then the port closes
        threading.Timer(LAME_DUCK, super().handle_exit, (sig, frame)).start()


def _logging(level):
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pe serve: %(message)s"))
    log = logging.getLogger("pe.serve")
    log.handlers[:] = [handler]
    log.setLevel(level.upper())
    log.propagate = False


def _config(app, settings, **extra):
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
        timeout_graceful_shutdown=int(settings.timeout) + 1,
        timeout_keep_alive=5,
        **extra,
    )


def worker_app():
    """The app of one --workers process (uvicorn imports it by name in each process)."""
    settings = Settings(**json.loads(os.environ[_ENV]))
    _logging(settings.log_level)
    return make_app(load_model(settings), settings, STATE)


def serve(settings, echo):
    """Runs the server until a signal stops it; returns once every accepted request is answered."""
    _logging(settings.log_level)
    model = load_model(settings)  # with --workers, the check that it loads, before any process starts
    where = f"http://{settings.host}:{settings.port}"
    echo(f"pe serve: {_what(model)} on {where} (POST /predict; GET /health, /metadata, /metrics)")
    if settings.workers == 1:
        _Server(_config(make_app(model, settings, STATE), settings)).run()
        return
    del model
    os.environ[_ENV] = json.dumps(asdict(settings))
    config = _config(
        "pe_cli.run.serve:worker_app", settings, factory=True, workers=settings.workers, timeout_worker_healthcheck=120
    )
    sock = config.bind_socket()
    try:
        Multiprocess(config, [sock]).run()
    finally:
        sock.close()


def _what(model):
    if isinstance(model, DirModel):
        return f"model directory {model.info['dir']} (inputs {', '.join(model.model.feeds)})"
    return f"checkpoint {model.info['checkpoint']} (step {model.info['step']}), rows in"
