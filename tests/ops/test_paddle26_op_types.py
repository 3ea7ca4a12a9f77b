"""Issue 85's count: the op types of Paddle 2.6.2 (tests/data/paddle-2.6.2-op-types.txt, written from the
manifest by tools/paddle26_op_count.py --write-types) that pe registers under Paddle's names. 449 before
issue 85; the floor below rises as ops are added, so an op lost fails here."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from paddle26_op_count import TYPES, count, manifest_types  # noqa: E402

sys.path.remove(os.path.join(ROOT, "tools"))

REGISTERED_AT_LEAST = 619


def test_paddle26_op_types_registered():
    types = manifest_types(TYPES)
    assert len(types) == 784
    have, missing = count(types)
    assert len(have) >= REGISTERED_AT_LEAST, f"{len(have)} of Paddle 2.6.2's op types registered; missing: {missing}"
