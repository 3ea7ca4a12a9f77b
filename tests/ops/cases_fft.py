"""Op cases for family fft: Paddle 2.6.2's recorded values (tests/ops/paddle26.py); their gradients are refused
(tests/ops/test_coverage.py's COVERED_ELSEWHERE names the test)."""

from tests.ops.paddle26 import recorded_cases

CASES = recorded_cases("fft")
