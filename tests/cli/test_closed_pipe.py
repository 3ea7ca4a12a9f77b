"""Output into a pipe its reader already closed (`pe layers | head`): pe ends quietly with status
141, as a command that SIGPIPE stops, with nothing on stderr (issue 56). Real `pe` processes whose
stdout is a pipe closed before they write, so the write always meets the closed pipe."""

import subprocess

import pytest

from tests.cli.test_helpers import PE, REPO


@pytest.mark.parametrize("args", [["layers"], ["keys"], ["--help"]])
def test_a_closed_pipe_ends_pe_quietly(args):
    proc = subprocess.Popen(PE + args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # the reader is gone before pe writes anything
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == 141
    assert stderr == ""
