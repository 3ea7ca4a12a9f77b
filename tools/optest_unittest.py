"""Runs a Paddle test module's cases with unittest, as Paddle's CI runs its unit tests (``python -m
unittest MODULE``), for the test files that do not call ``unittest.main()`` themselves
(test_teacher_student_sigmoid_loss_op.py): run by itself such a file runs nothing, on Fluid too.
tools/optest_table.py runs it under pe in the files' directory: ``pe fluid tools/optest_unittest.py MODULE -v``."""
import os
import sys
import unittest

if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    unittest.main(module=sys.argv[1], argv=[sys.argv[0]] + sys.argv[2:])
