"""Op cases for family primitive_shaping (Paddle 2.6's structural *_p ops): Paddle 2.6.2's recorded values, the
ops run as its prim2orig lowering gives them (tests/ops/paddle26.py)."""

from tests.ops.paddle26 import recorded_cases

CASES = recorded_cases("primitive_shaping")
