"""``pe serve``: a trained run, or an inference model directory, answering HTTP requests (registered
on the ``pe`` group by pe_cli/cli/main.py; the engine and the server load in the body, as there)."""

import click

from .errors import CONTEXT, EPILOG, debug_option, guarded
from .options import threads_option, use_threads
from ..base.errors import PeError


# serve's limits, in --help's order: (flag, type, default, help)
_LIMITS = (
    ("--max-batch", click.IntRange(min=1), 64, "Rows per executor run, at most."),
    (
        "--max-wait-ms",
        click.FloatRange(min=0),
        2.0,
        "How long a batch waits for more rows (only while other requests are being read) before it runs.",
    ),
    (
        "--max-queue",
        click.IntRange(min=1),
        256,
        "Requests accepted and not yet answered, at most; one more is answered 503.",
    ),
    ("--max-body-bytes", click.IntRange(min=1), 4 * 1024 * 1024, "A request body over this is answered 413."),
    (
        "--timeout",
        click.FloatRange(min=0.001),
        30.0,
        "Seconds a request may wait for its answer (then 503); also the bound on draining at SIGTERM.",
    ),
    ("--workers", click.IntRange(min=1), 1, "Processes sharing the port."),
)


def _limits(command):
    """``command`` with each of _LIMITS as an option (its default shown in --help)."""
    for flag, kind, default, text in reversed(_LIMITS):
        command = click.option(flag, type=kind, default=default, show_default=True, help=text)(command)
    return command


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("target", type=click.Path(), metavar="RUN|CONFIG|MODEL_DIR|PREFIX")
@click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--checkpoint",
    "-c",
    metavar="PATH",
    help="With a CONFIG: a run directory (its best checkpoint where it kept one, else its newest), "
    "ckpt/last, ckpt/best or ckpt/step-N. With a RUN: one of its checkpoints (default: best, else newest).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="The port.")
@click.option("--output", metavar="LAYER", help="A run's layer to predict with (as pe predict --output).")
@click.option("--model-filename", metavar="NAME", help="A MODEL_DIR's program file (default: __model__).")
@click.option("--params-filename", metavar="NAME", help="A MODEL_DIR's parameters in one file.")
@_limits
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="info",
    show_default=True,
    help="info: one line per request on stderr.",
)
@threads_option
@debug_option
@guarded
def serve(target, overrides, checkpoint, threads, **options):
    """Answer predictions over HTTP: POST /predict, GET /health, /metadata, /metrics.

    A run (its directory, or a CONFIG with -c) takes raw rows, {"rows": [{"column": value, ...}]},
    and answers what pe predict -o x.csv writes for them; a MODEL_DIR or PREFIX (an inference model
    Paddle or pe saved) takes its feeds, {"inputs": {"feed": nested list}}, and answers its fetch
    targets as pe infer does. Needs the serve extra: pip install 'pe-cli[serve]'.

    \b
    pe serve runs/penguins
    curl -s localhost:8000/predict -H 'Content-Type: application/json' \\
      -d '{"rows": [{"island": "Biscoe", "bill_length_mm": 40.1, "bill_depth_mm": 18.9,
           "flipper_length_mm": 190, "body_mass_g": 4300, "sex": "male"}]}'
    """
    try:
        from ..run.serve import Settings, serve as run_serve
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] in ("uvicorn", "starlette", "anyio", "h11"):
            raise PeError(f"pe serve needs {e.name}: pip install 'pe-cli[serve]'") from None
        raise
    use_threads(threads)
    settings = Settings(target=target, checkpoint=checkpoint, overrides=tuple(overrides), **options)
    run_serve(settings, click.echo)
