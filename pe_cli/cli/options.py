"""Options several commands share: ``--threads N`` on every command that runs ops; ``pe train``'s
``--dataset TABLE`` (a Ludwig config's table)."""

import json
import os

import click

from .errors import _fail

THREADS_HELP = (
    "Threads pe's kernels use in all (default: the run config's threads, else PE_NUM_THREADS, else "
    "every CPU this process may run on); at least 1, at most the CPUs."
)

threads_option = click.option("--threads", metavar="N", default=None, help=THREADS_HELP)


def use_threads(threads, cfg=None):
    """Applies ``--threads`` (``threads``), else ``cfg``'s ``threads:`` key, before any kernel runs
    (pe_cli/run/thread_count.py). Returns the count applied, or None."""
    from ..run.thread_count import use_threads as apply

    return apply(threads, cfg.data.get("threads") if cfg is not None else None)


def check_threads(threads):
    """A one-line UsageError for a ``--threads`` below 1 or not a number, before anything starts."""
    from ..run.thread_count import parse_threads

    parse_threads(threads)


dataset_option = click.option(
    "--dataset",
    metavar="TABLE",
    help="With a model file of features (a Ludwig config) as CONFIG: the table to train on, as Ludwig's "
    "--dataset (.csv, .tsv, .jsonl, or a folder of class folders): the file is its own run config "
    "(its trainer and split, else pe's defaults).",
)


def dataset_override(path):
    """``--dataset TABLE`` as the override ``data.train={format: ..., path: TABLE}`` (its format by its name)."""
    formats = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl"}
    fmt = "folders" if os.path.isdir(path) else formats.get(os.path.splitext(path)[1].lower())
    if fmt is None:
        _fail(f"pe: error: --dataset {path}: a .csv, .tsv or .jsonl table, or a folder of class folders", 2)
    return f"data.train={{format: {fmt}, path: {json.dumps(os.path.abspath(path))}}}"
