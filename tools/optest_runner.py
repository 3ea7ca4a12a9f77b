"""Runs one of Paddle's unit test files as Paddle's CI does and records each case's outcome, one JSON
line a case, to a results file: tools/optest_table.py reads it (instead of parsing unittest's text,
which the lines Fluid's C++ logs and warnings print between a case's name and its outcome break).

    python tools/optest_runner.py RESULTS test_mul_op.py -v                # on Fluid 1.8.5's Python
    python -m pe_cli fluid tools/optest_runner.py RESULTS test_mul_op.py -v  # on pe

It runs in the test file's directory. A file that calls ``unittest.main()`` runs as its own
``__main__``; one that does not (test_teacher_student_sigmoid_loss_op.py: run by itself it runs
nothing, on Fluid too) runs by ``unittest.main(module=...)``, as Paddle's CI (``python -m unittest``).
Each line: ``{"case": id, "outcome": ok | fail | error | skipped | expected failure | unexpected
success, "error": "<exception type>: <first line of its message>", "seconds": ...}``; an error of
setUpClass / tearDownClass / a module counts as a case of its own (unittest reports it so); ``"where"``
of a case that failed: its traceback's innermost frame in the test's folder. The
last line is ``{"end": exit status}`` when the file ran to its end. Engine-neutral: it imports
neither Paddle nor pe, and runs on Python 3.8 (Fluid 1.8.5's) as on pe's.
"""

import json
import os
import runpy
import sys
import time
import traceback
import unittest


def error_line(err):
    """``"<type>: <first line of the message>"`` of an exc_info triple (the type with its module unless
    it is a builtin), at most 300 characters."""
    kind, value = err[0], err[1]
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    text = str(value).strip().splitlines()
    if not text:  # an assert with no message: the line of the test that failed
        frames = traceback.extract_tb(err[2])
        text = [frames[-1].line or ""] if frames else [""]
    return f"{name}: {text[0].strip()}"[:300] if text[0].strip() else name


def test_frame(err):
    """``file:line function`` of the innermost frame of a traceback that is in the test's own folder
    (the test file or its helpers, such as op_test.py): which of the test's checks failed."""
    folder = os.getcwd()
    frames = [f for f in traceback.extract_tb(err[2]) if os.path.abspath(f.filename).startswith(folder)]
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno} {frames[-1].name}" if frames else ""


class Recorder:
    def __init__(self, path):
        self.path = path
        open(path, "w").close()

    def write(self, record):
        with open(self.path, "a") as out:  # a line at a time: a file killed for time keeps its cases
            out.write(json.dumps(record) + "\n")


def recording_result(recorder):
    """A TextTestResult class that also writes each outcome through ``recorder``."""

    class RecordingResult(unittest.TextTestResult):
        def startTest(self, test):
            self._started = time.time()
            super().startTest(test)

        def _record(self, test, outcome, err=None):
            started = getattr(self, "_started", None) if isinstance(test, unittest.TestCase) else None
            seconds = round(time.time() - started, 3) if started else 0  # a class's error: no case timed
            record = {"case": test.id(), "outcome": outcome, "seconds": seconds}
            if err is not None:
                record["error"] = error_line(err)
                record["where"] = test_frame(err)
            recorder.write(record)

        def addSuccess(self, test):
            super().addSuccess(test)
            self._record(test, "ok")

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._record(test, "fail", err)

        def addError(self, test, err):
            super().addError(test, err)
            self._record(test, "error", err)

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._record(test, "skipped")

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            self._record(test, "expected failure")

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            self._record(test, "unexpected success")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:  # a failing subtest fails its case (unittest counts it so)
                self._record(subtest, "fail" if issubclass(err[0], test.failureException) else "error", err)

    return RecordingResult


def main(argv):
    results, script, args = argv[0], argv[1], argv[2:]
    recorder = Recorder(os.path.abspath(results))
    unittest.TextTestRunner.resultclass = recording_result(recorder)
    directory = os.path.dirname(os.path.abspath(script))
    os.chdir(directory)
    sys.path.insert(0, directory)
    status = 0
    try:
        if "unittest.main(" in open(script, errors="replace").read():
            sys.argv = [script, *args]
            runpy.run_path(script, run_name="__main__")
        else:
            name = os.path.basename(script)[: -len(".py")]
            unittest.main(module=name, argv=[script, *args])
    except SystemExit as e:
        status = int(e.code) if isinstance(e.code, int) else (0 if e.code is None else 1)  # unittest: a bool
    except BaseException:  # noqa: BLE001 -- an error outside any case (the module's import)
        recorder.write(
            {"case": os.path.basename(script), "outcome": "error", "error": error_line(sys.exc_info()), "seconds": 0}
        )
        traceback.print_exc()
        status = 1
    recorder.write({"end": status})
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
