"""tools/run_upstream.py's ``tests`` key: a unittest file runs unchanged with only the named test
classes or methods (Paddle 2.6's files mix static and dygraph classes; docs/COMPAT.md lists what each
selection leaves out), and a file without the key runs all of its tests."""

from paths import REPO
import json
import os
import subprocess
import sys

UNITTEST_FILE = """import unittest
import paddle


class TestStatic(unittest.TestCase):
    def test_static(self):
        paddle.enable_static()
        x = paddle.static.data("x", [2], "float32")
        self.assertEqual(list(x.shape), [2])


class TestDygraph(unittest.TestCase):
    def test_dygraph(self):
        paddle.disable_static()
        self.assertEqual(paddle.to_tensor([1.0]).shape, [1])
"""


def test_the_manifest_tests_key_runs_only_the_named_classes(tmp_path):
    for name in ("mixed.py", "whole.py"):
        (tmp_path / name).write_text(UNITTEST_FILE)
    (tmp_path / "suite.json").write_text(json.dumps({"files": {"mixed.py": {"tests": ["TestStatic"]}, "whole.py": {}}}))
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(REPO, "tools", "run_upstream.py"),
            str(tmp_path),
            "--jobs",
            "1",
            "--timeout",
            "120",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    lines = {
        line.split("|")[0].strip(): line.split("|", 1)[1].strip() for line in proc.stdout.splitlines() if "|" in line
    }
    assert lines["mixed.py"] == "pe: passes: 1 tests", proc.stdout
    assert lines["whole.py"].startswith("pe: ") and "disable_static" in lines["whole.py"], proc.stdout


def test_the_manifest_after_key_runs_a_program_after_another_in_its_directory(tmp_path):
    """``after``: the program that writes what this one reads (a saved model) runs first, in the same
    fresh directory; when it fails, the program fails naming it."""
    suite = tmp_path / "suite"
    (suite / "tutorials").mkdir(parents=True)
    (suite / "tutorials" / "train.py").write_text("import os\nos.makedirs('mnist')\nopen('mnist/w', 'w').write('1')\n")
    (suite / "tutorials" / "attack.py").write_text("assert open('mnist/w').read() == '1'\n")
    (suite / "crash.py").write_text("raise SystemExit('no data')\n")
    (suite / "after_crash.py").write_text("pass\n")
    (suite / "suite.json").write_text(
        json.dumps(
            {
                "files": {
                    "tutorials/train.py": {},
                    "tutorials/attack.py": {"after": "tutorials/train.py"},
                    "crash.py": {},
                    "after_crash.py": {"after": "crash.py"},
                }
            }
        )
    )
    (tmp_path / "home").mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(REPO, "tools", "run_upstream.py"),
            str(suite),
            "--jobs",
            "1",
            "--home",
            str(tmp_path / "home"),
            "--only",
            "attack.py,after_crash.py",
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=REPO),
        timeout=300,
    )
    lines = {
        line.split("|")[0].strip(): line.split("|", 1)[1].strip() for line in proc.stdout.splitlines() if "|" in line
    }
    assert lines == {
        "tutorials/attack.py": "pe: passes",
        "after_crash.py": "pe: crash.py, run first, failed: no data",
    }, proc.stdout + proc.stderr


def test_deps_and_data_give_a_program_its_own_packages_and_data_files(tmp_path):
    """``--deps DIR``: a package the program imports and pe does not have (pandas, scipy) comes from
    DIR, after pe (a package there named like pe's does not shadow it). The manifest's ``data``
    writes the files the program's README data step leaves in its directory."""
    suite, deps = tmp_path / "suite", tmp_path / "deps"
    suite.mkdir()
    (deps / "their_lib").mkdir(parents=True)
    (deps / "their_lib" / "__init__.py").write_text("VALUE = 7\n")
    (deps / "pe_cli").mkdir()
    (deps / "pe_cli" / "__init__.py").write_text("raise ImportError('shadowed pe')\n")
    (suite / "uses_lib.py").write_text(
        "import their_lib\nassert their_lib.VALUE == 7\n"
        "assert open('Data/ml-1m.test.rating').readline().count('\\t') == 3\n"
    )
    (suite / "suite.json").write_text(json.dumps({"files": {"uses_lib.py": {"data": "ncf_ml1m"}}}))
    (tmp_path / "home").mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(REPO, "tools", "run_upstream.py"),
            str(suite),
            "--jobs",
            "1",
            "--home",
            str(tmp_path / "home"),
            "--deps",
            str(deps),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=REPO),
        timeout=300,
    )
    rows = [line.split("|", 1)[1].strip() for line in proc.stdout.splitlines() if "|" in line]
    assert rows == ["pe: passes"], proc.stdout
