"""tools/optest_table.py reads a unittest -v run as it is: cases, passing, skipped and the first
failure's cause; it finds the op types a Paddle test file tests from its OpTest cases."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import optest_table  # noqa: E402

CASES = '''import unittest

class OpTest(unittest.TestCase):
    pass

class TestMulOp(OpTest):
    def setUp(self):
        self.op_type = "mul"
    def test_ok(self):
        pass
    def test_fails(self):
        self.assertTrue(False, "Output (Out) has diff")
    @unittest.skipIf(True, "core is not compiled with CUDA")
    def test_cuda(self):
        pass

def create_test_class(parent):
    class TestMade(parent):
        def test_made_fails(self):
            self.assertTrue(False, "made in a function")
    globals()["TestMade"] = TestMade


create_test_class(unittest.TestCase)


class TestBroken(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise KeyError("FLAGS_x")
    def test_never(self):
        pass

if __name__ == "__main__":
    unittest.main()
'''


def test_parse_counts_a_real_unittest_run(tmp_path):
    path = tmp_path / "test_mul_op.py"
    path.write_text(CASES)
    run = subprocess.run([sys.executable, str(path), "-v"], capture_output=True, text=True)
    cases, passing, skipped, cause = optest_table.parse(run.stdout + run.stderr)
    assert (cases, passing, skipped) == (5, 1, 1)     # TestMade's case is __main__.create_test_class.<locals>.TestMade
    assert cause == "TestBroken: KeyError: 'FLAGS_x'"        # unittest prints errors before failures
    assert optest_table.ops_of(str(path), {"mul", "relu"}) == ["mul"]
    assert optest_table.ops_of(str(path), {"relu"}) == []


def test_cached_only_writes_the_cached_rows_with_their_notes(tmp_path):
    """--cached-only runs no file: rows come from the cache, a NOTES file's cause says its Paddle-only detail."""
    import json
    for name in ("test_adam_op.py", "test_mul_op.py"):
        (tmp_path / name).write_text(CASES.replace('"mul"', '"adam"' if "adam" in name else '"mul"'))
    (tmp_path / "sources.json").write_text(json.dumps(
        [{"repo": "PaddlePaddle/Paddle", "path": f"u/{n}", "commit": "c" * 40}
         for n in ("test_adam_op.py", "test_mul_op.py")]))
    cache = tmp_path / "cache.jsonl"
    cache.write_text(json.dumps({"file": "test_adam_op.py", "result": [6, 5, 0, "TestSparseAdamOp: boom"]}) + "\n")
    rows = optest_table.collect(str(tmp_path), [], 1, 10, cache=str(cache), cached_only=True)
    assert [r[1] for r in rows] == ["test_adam_op.py"]
    assert rows[0][3:6] == (6, 5, 0) and rows[0][6].startswith("TestSparseAdamOp: boom [Paddle-only: ")


def test_a_file_without_unittest_main_runs_its_cases_by_unittest(tmp_path):
    """As Paddle's CI (python -m unittest): test_teacher_student_sigmoid_loss_op.py calls no unittest.main()."""
    (tmp_path / "test_mul_op.py").write_text(CASES.split('if __name__')[0])
    cases, passing, skipped, _ = optest_table.run_file(str(tmp_path), "test_mul_op.py", [], 120)
    assert (cases, passing, skipped) == (5, 1, 1)     # with TestMade, made in a function
