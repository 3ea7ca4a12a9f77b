"""Op cases for family pointwise_math: Paddle 2.6.2's recorded values (tests/ops/paddle26.py)."""

from tests.ops.paddle26 import recorded_cases

CASES = recorded_cases("pointwise_math")
