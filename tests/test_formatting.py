"""The whole tree is as ruff formats it, and its linter finds nothing (pyproject.toml pins the release, sets
the line length and the rules):
a reader meets one layout everywhere, and the file-size limit is met by splitting, never by squeezing."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUFF = os.path.join(os.path.dirname(sys.executable), "ruff")


def _ruff(*args):
    return subprocess.run([RUFF, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_tree_is_formatted():
    done = _ruff("format", "--check", ".")
    assert done.returncode == 0, "run `make format`:\n" + done.stdout[-3000:] + done.stderr[-2000:]


def test_the_tree_passes_the_linter():
    """pyflakes' and pycodestyle's error rules as pyproject.toml selects them: no unused or undefined name,
    no redefinition, no lambda assigned to a name, no syntax error."""
    done = _ruff("check", ".")
    assert done.returncode == 0, "fix what ruff names (`ruff check --fix` fixes some):\n" + done.stdout[-3000:]
