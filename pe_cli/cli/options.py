"""Options several commands share: ``--threads N`` on every command that runs ops."""

import click

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
