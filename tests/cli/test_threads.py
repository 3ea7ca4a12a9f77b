"""``--threads N`` and the run config's ``threads:`` (issue 77): the count pe's kernels use, applied
before any kernel runs (PE_NUM_THREADS and numba's pool), flag > config > PE_NUM_THREADS > the CPUs;
a count below 1 is one line, one above the CPUs is lowered with a warning."""

import os

import pytest

from pe_cli.base.errors import UsageError
from pe_cli.base.limits import cores
from pe_cli.config import load_config
from pe_cli.run.thread_count import use_threads
from tests.cli.test_helpers import REPO, pe

SCRIPT = """\
import os
import numba
from pe_cli.kernels.cpu.runtime import threads
print("threads", threads.cores(), numba.config.NUMBA_NUM_THREADS, os.environ["PE_NUM_THREADS"])
"""


def test_the_flag_sizes_pe_and_numbas_pool_before_any_kernel(tmp_path):
    (tmp_path / "t.py").write_text(SCRIPT)
    proc = pe("fluid", "--threads", "1", tmp_path / "t.py", env={"PE_NUM_THREADS": "2"})
    assert proc.returncode == 0, proc.stderr
    assert "threads 1 1 1" in proc.stdout


def test_more_than_the_cpus_is_lowered_with_a_warning(monkeypatch):
    monkeypatch.setenv("PE_NUM_THREADS", "1")
    monkeypatch.setenv("NUMBA_NUM_THREADS", os.environ.get("NUMBA_NUM_THREADS", str(cores())))
    said = []
    assert use_threads(str(10**6), warn=said.append) == cores() == int(os.environ["PE_NUM_THREADS"])
    assert said == [
        f"pe: warning: --threads 1000000 is more than the {cores()} CPU(s) this process may run on; "
        f"using {cores()} (more threads than CPUs wait on each other's time slices)"
    ]


def test_a_count_below_one_is_one_line(tmp_path):
    (tmp_path / "t.py").write_text(SCRIPT)
    proc = pe("fluid", "--threads", "0", tmp_path / "t.py")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (
        "pe: error: --threads 0: the number of threads must be a whole number of at "
        f"least 1 (the default is every CPU this process may run on: {cores()})"
    )
    for value in ("-2", "two", "1.5"):
        with pytest.raises(UsageError, match=f"--threads {value}: the number of threads must be"):
            use_threads(value)


def test_flag_over_config_over_environment(monkeypatch):
    monkeypatch.setenv("PE_NUM_THREADS", "2")
    monkeypatch.setenv("NUMBA_NUM_THREADS", os.environ.get("NUMBA_NUM_THREADS", str(cores())))
    cfg = load_config(os.path.join(REPO, "configs", "mnist_mlp.yaml"), ["threads=1"])
    assert cfg.data["threads"] == 1
    assert use_threads(None, cfg.data["threads"]) == 1 and os.environ["PE_NUM_THREADS"] == "1"  # config > env
    monkeypatch.setenv("PE_NUM_THREADS", "2")
    assert use_threads(None, None) is None and os.environ["PE_NUM_THREADS"] == "2"  # env stands
    assert use_threads("1", 5) == 1 and os.environ["PE_NUM_THREADS"] == "1"  # flag > config
    with pytest.raises(UsageError, match="threads: 0"):
        use_threads(None, 0)
