"""For the tests of a module of pe_cli/ that a tool generates (pe_cli/ops/family_index.py,
pe_cli/layers/layer_index.py): it is what its tool prints now, and what a fresh interpreter imports."""

import os
import subprocess
import sys

from paths import REPO


def python(code):
    """What ``code`` prints in a fresh interpreter that imports pe from this repository."""
    env = dict(os.environ, PYTHONPATH=REPO)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def assert_current(tool, module):
    """The file ``module`` (a path under the repository) holds what ``tool`` (under tools/) prints now."""
    env = dict(os.environ, PYTHONPATH=REPO)
    done = subprocess.run([sys.executable, os.path.join(REPO, tool)], capture_output=True, text=True, cwd=REPO, env=env)
    assert done.returncode == 0, done.stderr
    with open(os.path.join(REPO, module), encoding="utf-8") as f:
        assert f.read() == done.stdout, f"run: python {tool} --write"
