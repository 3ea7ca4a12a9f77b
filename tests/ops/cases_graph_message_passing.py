"""Op cases for family graph_message_passing (graph_send_recv, graph_send_ue_recv, graph_send_uv): Paddle 2.6.2's
recorded values (tests/ops/paddle26.py)."""

from tests.ops.paddle26 import recorded_cases

CASES = recorded_cases("graph_message_passing")
