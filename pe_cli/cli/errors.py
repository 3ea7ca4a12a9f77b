"""How the ``pe`` command fails: every error is one line on stderr and an exit status (2 for a
config or usage error, 1 for a runtime error, 130 for Ctrl-C); ``--debug`` (or PE_DEBUG=1) shows the
traceback instead. Used by every command of pe_cli/cli/main.py."""

import contextlib
import errno
import functools
import os
import sys

import click

from ..base.errors import PeError, UsageError, shortened

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EPILOG = "Docs: docs/CONFIG.md (every key of both YAML files). Examples: configs/*.yaml, models/*.yaml."


# -- error handling ----------------------------------------------------------------------------


def _fail(message, code):
    click.echo(shortened(message), err=True)
    sys.exit(code)


def guarded(fn):
    """Runs a command body, turning pe's errors into one line and an exit status."""

    @functools.wraps(fn)
    def wrapper(*args, debug=False, **kwargs):
        debug = debug or os.environ.get("PE_DEBUG") == "1"
        try:
            return fn(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, BrokenPipeError):
            raise  # a closed pipe: PeGroup ends pe quietly
        except KeyboardInterrupt:
            if debug:
                raise
            _fail("pe: interrupted", 130)
        except Exception as e:  # noqa: BLE001 -- the one place every error becomes a line
            if debug:
                raise
            from ..config import ConfigError  # here: `pe --help` loads no engine module

            if isinstance(e, ConfigError):
                _fail(e.line(), 2)
            if isinstance(e, UsageError):
                _fail(f"pe: error: {e}", 2)
            if isinstance(e, PeError):
                _fail(f"pe: error: {e}", 1)
            if isinstance(e, OSError) and e.errno == errno.ENOSPC:
                where = f" writing {e.filename}" if e.filename else ""
                _fail(
                    f"pe: error: no space left on device{where}; free some space, then --resume the run "
                    f"(its last checkpoint is complete)",
                    1,
                )
            _fail(f"pe: internal error: {type(e).__name__}: {e}; run again with --debug for the traceback", 1)

    return wrapper


class PeGroup(click.Group):
    """The ``pe`` group. Output into a pipe closed early (``pe layers | head``) ends pe quietly with
    status 141, as a command that SIGPIPE stops ends (128 + 13), instead of a BrokenPipeError: the
    handling Python's docs give ("Note on SIGPIPE"), in this one place for every command and --help."""

    def make_context(self, *args, **kwargs):
        with _quiet_on_closed_pipe():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx):
        with _quiet_on_closed_pipe():
            try:
                return super().invoke(ctx)
            finally:
                sys.stdout.flush()  # what is still buffered meets the closed pipe here, not at exit


@contextlib.contextmanager
def _quiet_on_closed_pipe():
    try:
        yield
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)  # Python flushes the streams at exit: into nothing
        os.dup2(devnull, sys.stdout.fileno())
        os.dup2(devnull, sys.stderr.fileno())
        sys.exit(141)


debug_option = click.option("--debug", is_flag=True, help="Show Python tracebacks instead of one-line errors.")
