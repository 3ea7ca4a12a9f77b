"""How the ``pe`` command fails: every error is one line on stderr and an exit status (2 for a
config or usage error, 1 for a runtime error, 130 for Ctrl-C); ``--debug`` (or PE_DEBUG=1) shows the
traceback instead. Used by every command of pe_cli/cli/main.py."""
import errno
import functools
import os
import sys

import click

from ..base.errors import PeError, UsageError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EPILOG = "Docs: docs/CONFIG.md (every key of both YAML files). Examples: configs/*.yaml, models/*.yaml."


# -- error handling ----------------------------------------------------------------------------

def _fail(message, code):
    click.echo(message, err=True)
    sys.exit(code)


def guarded(fn):
    """Runs a command body, turning pe's errors into one line and an exit status."""

    @functools.wraps(fn)
    def wrapper(*args, debug=False, **kwargs):
        debug = debug or os.environ.get("PE_DEBUG") == "1"
        try:
            return fn(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            if debug:
                raise
            _fail("pe: interrupted", 130)
        except Exception as e:   # noqa: BLE001 -- the one place every error becomes a line
            if debug:
                raise
            from ..config import ConfigError     # here: `pe --help` loads no engine module
            if isinstance(e, ConfigError):
                _fail(e.line(), 2)
            if isinstance(e, UsageError):
                _fail(f"pe: error: {e}", 2)
            if isinstance(e, PeError):
                _fail(f"pe: error: {e}", 1)
            if isinstance(e, OSError) and e.errno == errno.ENOSPC:
                where = f" writing {e.filename}" if e.filename else ""
                _fail(f"pe: error: no space left on device{where}; free some space, then --resume the run "
                      f"(its last checkpoint is complete)", 1)
            _fail(f"pe: internal error: {type(e).__name__}: {e}; run again with --debug for the traceback", 1)
    return wrapper


debug_option = click.option("--debug", is_flag=True, help="Show Python tracebacks instead of one-line errors.")
