"""``pe serve``'s HTTP face: a Starlette app over a loaded model (serve_model.py) and its batcher
(serve_batch.py). POST /predict, GET /health, /metadata, /metrics; every error a JSON
``{"error": one line}`` with its status (400 bad JSON, columns or shapes; 404/405; 413 a body over
the limit; 415 not JSON; 500 a run that failed; 503 a full queue, a timeout, or shutting down)."""

import asyncio
import contextlib
import json
import logging
import math
import time

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from ..base.errors import PeError
from .serve_batch import Batcher, Metrics, QueueFull
from .serve_model import BadRequest

LOG = logging.getLogger("pe.serve")


class Refused(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, message


def json_response(body, status=200):
    try:
        text = json.dumps(body, allow_nan=False)
    except ValueError:  # NaN or Inf among the values: JSON has no such number, so they go as null
        text = json.dumps(_finite(body), allow_nan=False)
    return Response(text, status, media_type="application/json")


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


async def _body(request, limit):
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise Refused(415, f"the body must be JSON (Content-Type: application/json), not {kind or 'untyped'!r}")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise Refused(413, f"the body is {int(declared):,} bytes, over --max-body-bytes {limit:,}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Refused(413, f"the body is over --max-body-bytes {limit:,}")
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks))
    except (ValueError, UnicodeDecodeError) as e:
        raise Refused(400, f"the body is not valid JSON ({str(e)[:120]})") from None
    if not isinstance(body, dict):
        raise Refused(400, f"the body is a JSON {type(body).__name__}, not an object")
    return body


class _Handlers:
    """The endpoints over one model, its batcher and counters; ``state`` (a dict) holds "closing",
    set when a signal asks the server to stop."""

    def __init__(self, model, settings, state):
        self.model, self.settings, self.state = model, settings, state
        self.metrics = Metrics()
        self.batcher = Batcher(model, settings.max_batch, settings.max_wait_ms / 1000, settings.max_queue, self.metrics)

    async def answer(self, request):
        settings = self.settings
        if self.state.get("closing"):
            raise Refused(503, "the server is shutting down")
        self.batcher.arrive(1)
        try:
            body = await _body(request, settings.max_body_bytes)
            feeds, rows, notes = self.model.prepare(body)
            job = self.batcher.submit(feeds, rows)
        except BadRequest as e:
            raise Refused(400, e.message) from None
        except QueueFull:
            full = f"the queue is full ({settings.max_queue} requests wait for answers); retry later"
            raise Refused(503, full) from None
        finally:
            self.batcher.arrive(-1)
        try:
            part = await asyncio.wait_for(asyncio.wrap_future(job.future), settings.timeout)
        except asyncio.TimeoutError:
            raise Refused(503, f"no answer within --timeout {settings.timeout:g} s; retry later") from None
        except PeError as e:
            raise Refused(400, str(e).splitlines()[0]) from None
        except Exception as e:
            raise Refused(500, f"the model's run failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from None
        return self.model.answer(part, notes), rows

    async def predict(self, request):
        start, rows = time.perf_counter(), 0
        try:
            body, rows = await self.answer(request)
            response = json_response(body)
        except Refused as e:
            response = json_response({"error": e.message}, e.status)
        self.done(request, response.status_code, rows, start)
        return response

    def done(self, request, status, rows, start):
        """The request counted, and its line logged (at --log-level info)."""
        seconds = time.perf_counter() - start
        self.metrics.request(request.url.path, status, rows if status == 200 else 0, seconds)
        client = f"{request.client.host}:{request.client.port}" if request.client else "-"
        LOG.info("%s %s %s %d %d rows %.1f ms", client, request.method, request.url.path, status, rows, seconds * 1000)

    async def health(self, request):
        closing = self.state.get("closing")
        return json_response({"status": "shutting down" if closing else "ok"}, 503 if closing else 200)

    async def metadata(self, request):
        return json_response(self.model.metadata())

    async def metrics_text(self, request):
        text = self.metrics.text(self.batcher.pending)
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4")

    async def http_error(self, request, exc):
        start = time.perf_counter()
        response = json_response({"error": f"{request.method} {request.url.path}: {exc.detail}"}, exc.status_code)
        self.done(request, exc.status_code, 0, start)
        return response

    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        yield
        await asyncio.get_running_loop().run_in_executor(None, self.batcher.stop)


def make_app(model, settings, state):
    """The Starlette app answering with ``model`` (serve_model.py) under ``settings`` (serve.py)."""
    h = _Handlers(model, settings, state)
    routes = [
        Route("/predict", h.predict, methods=["POST"]),
        Route("/health", h.health, methods=["GET"]),
        Route("/metadata", h.metadata, methods=["GET"]),
        Route("/metrics", h.metrics_text, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: h.http_error}, lifespan=h.lifespan)
