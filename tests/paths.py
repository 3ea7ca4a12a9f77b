"""Where things are, for tests in any folder under tests/: the repository and the tests folder
(shared helpers such as the MPI workers and op_test.py live at the top of tests/)."""

import os

TESTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(TESTS)
