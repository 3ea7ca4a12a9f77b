"""tools/run_upstream.py's ``tests`` key: a unittest file runs unchanged with only the named test
classes or methods (Paddle 2.6's files mix static and dygraph classes; docs/COMPAT.md lists what each
selection leaves out), and a file without the key runs all of its tests."""
from paths import REPO
import json
import os
import subprocess
import sys

UNITTEST_FILE = '''import unittest
import paddle


class TestStatic(unittest.TestCase):
    def test_static(self):
        paddle.enable_static()
        x = paddle.static.data("x", [2], "float32")
        self.assertEqual(list(x.shape), [2])


class TestDygraph(unittest.TestCase):
    def test_dygraph(self):
        paddle.disable_static()
'''


def test_the_manifest_tests_key_runs_only_the_named_classes(tmp_path):
    for name in ("mixed.py", "whole.py"):
        (tmp_path / name).write_text(UNITTEST_FILE)
    (tmp_path / "suite.json").write_text(json.dumps({"files": {"mixed.py": {"tests": ["TestStatic"]},
                                                               "whole.py": {}}}))
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, os.path.join(REPO, "tools", "run_upstream.py"), str(tmp_path),
                           "--jobs", "1", "--timeout", "120"], capture_output=True, text=True, env=env, timeout=300)
    lines = {l.split("|")[0].strip(): l.split("|", 1)[1].strip() for l in proc.stdout.splitlines() if "|" in l}
    assert lines["mixed.py"] == "pe: passes: 1 tests", proc.stdout
    assert lines["whole.py"].startswith("pe: ") and "disable_static" in lines["whole.py"], proc.stdout
