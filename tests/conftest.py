import os
import sys

# tests/ is on the path so test modules share helpers (op_test) by plain import.
sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
