"""tools/optest_runner.py records each case of a unittest file as it ends (what C++ logs and warnings
print between a case's name and its outcome cannot spoil the count); tools/optest_table.py finds every
OpTest-based file of a directory and its sequence/ and ir/ subfolders, counts the files Fluid 1.8.5
passes on CPU and those of them pe passes wholly, and runs no (engine, file) its cache holds."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import optest_table  # noqa: E402

CASES = """import sys
import unittest

class OpTest(unittest.TestCase):
    pass

class TestMulOp(OpTest):
    def setUp(self):
        self.op_type = "mul"
    def test_ok(self):
        sys.stderr.write("W1128 build_strategy.cc:170] a C++ log line\\n")
        sys.stdout.write("printed by the case\\n")
    def test_fails(self):
        self.assertTrue(False, "Output (Out) has diff")
    @unittest.skipIf(True, "core is not compiled with CUDA")
    def test_cuda(self):
        pass

def create_test_class(parent):
    class TestMade(parent):
        def test_made_errs(self):
            raise KeyError("made in a function")
    globals()["TestMade"] = TestMade


create_test_class(unittest.TestCase)


class TestBroken(unittest.TestCase):
    @classmethod
    def tearDownClass(cls):
        raise AssertionError("This test do not have op_type in class attrs")
    def test_passes_first(self):
        pass
"""


def _records(tmp_path, text, name="test_mul_op.py"):
    (tmp_path / name).write_text(text)
    results = tmp_path / "cases.jsonl"
    subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "optest_runner.py"), str(results), str(tmp_path / name), "-v"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return [json.loads(line) for line in results.read_text().splitlines()]


def test_the_runner_records_every_case_and_class_error(tmp_path):
    records = _records(tmp_path, CASES + 'if __name__ == "__main__":\n    unittest.main()\n')
    outcomes = {r["case"].replace("__main__.", ""): r["outcome"] for r in records if "case" in r}
    assert outcomes == {
        "TestMulOp.test_ok": "ok",
        "TestMulOp.test_fails": "fail",
        "TestMulOp.test_cuda": "skipped",
        "create_test_class.<locals>.TestMade.test_made_errs": "error",
        "TestBroken.test_passes_first": "ok",
        "tearDownClass (TestBroken)": "error",
    }
    assert records[-1] == {"end": 1}
    summary = optest_table.summarize(records)
    assert (summary["cases"], summary["passing"], summary["skipped"], summary["failing"]) == (6, 2, 1, 3)
    # the first failure in run order (unittest runs the classes by name), with the line of the test's
    # folder it failed at
    assert summary["first_failure"] == (
        "tearDownClass (TestBroken) (at test_mul_op.py:32 tearDownClass): AssertionError: This test do not "
        "have op_type in class attrs"
    )
    failed = next(r for r in records if r.get("outcome") == "fail")
    assert failed["error"] == "AssertionError: False is not true : Output (Out) has diff"
    assert failed["where"].startswith("test_mul_op.py:") and failed["where"].endswith(" test_fails")


def test_a_file_without_unittest_main_runs_its_cases_by_unittest(tmp_path):
    """As Paddle's CI (python -m unittest): test_teacher_student_sigmoid_loss_op.py calls no unittest.main()."""
    records = _records(tmp_path, CASES)
    assert sum("case" in r for r in records) == 6 and records[-1] == {"end": 1}


def test_the_table_counts_files_fluid_passes_and_runs_nothing_cached(tmp_path):
    for sub in ("", "sequence", "ir", "mkldnn"):
        (tmp_path / sub).mkdir(exist_ok=True)
        (tmp_path / sub / "test_a_op.py").write_text("from op_test import OpTest\n")
    (tmp_path / "test_not_an_op_test.py").write_text("import unittest\n")
    files = optest_table.test_files(str(tmp_path))
    assert files == ["test_a_op.py", "sequence/test_a_op.py", "ir/test_a_op.py"]  # not mkldnn/, not plain tests

    def result(engine, name, cases, passing, skipped=0, first=""):
        return {
            "engine": engine,
            "file": name,
            "cases": cases,
            "passing": passing,
            "skipped": skipped,
            "failing": cases - passing - skipped,
            "first_failure": first,
            "seconds": 1.0,
        }

    cache = tmp_path / "runs.jsonl"
    cache.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                result("fluid", "test_a_op.py", 3, 3),
                result("pe", "test_a_op.py", 3, 2, first="TestX.test_y: boom"),
                result("fluid", "sequence/test_a_op.py", 2, 0, skipped=2),  # CUDA only: not passed on CPU
                result("pe", "sequence/test_a_op.py", 2, 0, skipped=2),
                result("fluid", "ir/test_a_op.py", 1, 1),
                result("pe", "ir/test_a_op.py", 1, 1),
            ]
        )
        + "\n"
    )
    done = optest_table.load_cache(str(cache))
    text = optest_table.table(files, done, "8e1712a7" + "0" * 32)
    assert text.startswith("**1 of the 2 files Fluid 1.8.5 passes on CPU pass wholly on pe (50.0 %)**")
    assert "| test_a_op.py | 3 | 2 | 0 | passes | 1.0 | TestX.test_y: boom |" in text
    assert "| sequence/test_a_op.py | 2 | 0 | 2 | all skipped (CUDA only) | 1.0 | no case passed |" in text
    before = cache.read_text()
    out = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "tools", "optest_table.py"),
            str(tmp_path),
            "--cache",
            str(cache),
            "--fluid",
            "/nonexistent/python",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0 and "1 of the 2 files" in out.stdout and cache.read_text() == before


def test_the_26_table_counts_paddles_passes_and_names_pes_refusals(tmp_path):
    """tools/optest26_table.py (Paddle 2.6.2's op tests): the files run are the rows; a file pe fails first
    on one of its named refusals (Paddle 2.6's PIR check, dygraph mode) is counted as such."""
    import optest26_table

    for name in ("test_a_op.py", "test_b_op.py", "test_c.py"):
        (tmp_path / name).write_text("")
    assert optest26_table.test_files(str(tmp_path)) == ["test_a_op.py", "test_b_op.py"]

    def result(engine, name, cases, passing, first=""):
        return dict(
            engine=engine,
            file=name,
            cases=cases,
            passing=passing,
            skipped=0,
            failing=cases - passing,
            first_failure=first,
            seconds=1.0,
        )

    pir = (
        "T.test_check_output (at prim_op_test.py:170 prepare_python_api_arguments): TypeError: cannot unpack "
        "non-iterable NoneType object"
    )
    done = {
        ("paddle", "test_a_op.py"): result("paddle", "test_a_op.py", 2, 2),
        ("pe", "test_a_op.py"): result("pe", "test_a_op.py", 2, 2),
        ("paddle", "test_b_op.py"): result("paddle", "test_b_op.py", 3, 3),
        ("pe", "test_b_op.py"): dict(result("pe", "test_b_op.py", 3, 1, first=pir), failures=[pir, pir]),
    }
    text = optest26_table.table(["test_a_op.py", "test_b_op.py"], done, "b12eb1e5b4" + "0" * 30)
    assert text.startswith(
        "**1 of the 2 files Paddle 2.6.2 passes on CPU pass wholly on pe**, and 1 more fail only on pe's "
        "named refusals (PIR, dygraph, prim, auto-parallel)"
    )
    assert "| test_b_op.py | 3 | 1 | 0 | 2 | passes | 1.0 | only pe's refusals (PIR 2) |" in text
    assert (
        optest26_table.refusal("X: paddle.to_tensor: called in dygraph mode (...); pe runs static graphs only")
        == "dygraph"
    )
    assert optest26_table.refusal("X: AssertionError: Output (Out) has diff") == ""
    bug = "T.test_y (at op_test.py:2120 _compare_numpy): AssertionError: Output (Out) has diff"
    done["pe", "test_b_op.py"]["failures"] = [pir, bug]
    text = optest26_table.table(["test_a_op.py", "test_b_op.py"], done, "b12eb1e5b4" + "0" * 30)
    assert f"| test_b_op.py | 3 | 1 | 0 | 1 | passes | 1.0 | {bug} |" in text  # the first failure not refused
