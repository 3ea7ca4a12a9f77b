"""Op cases for family graph_reindexing (graph_reindex): Paddle 2.6.2's recorded values (tests/ops/paddle26.py)."""

from tests.ops.paddle26 import recorded_cases

CASES = recorded_cases("graph_reindexing")
