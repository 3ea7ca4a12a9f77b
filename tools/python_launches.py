"""What stays a Python launch in the planned steps of a ``pe`` command: each plan's ops that run op by
op between segments (no launches for their variant), counted by op type, per plan.

    python tools/python_launches.py train configs/mnist_rows_transformer.yaml --max-steps 3 -q --out /tmp/o
"""

import collections
import sys

from pe_cli.executor import step_plan
from pe_cli.executor.plan import OpStep

PLANS = []
_init = step_plan.DevicePlan.__init__


def _recording_init(self, steps, sample):
    _init(self, steps, sample)
    left = collections.Counter(
        step.op.type for step, launches in zip(self.steps, self.launches) if launches is None and type(step) is OpStep
    )
    PLANS.append((sum(1 for x in self.launches if x is not None), left))


step_plan.DevicePlan.__init__ = _recording_init


def main():
    from pe_cli.cli.main import main as pe_main

    try:
        pe_main(sys.argv[1:], standalone_mode=False)
    finally:
        for n, (launched, left) in enumerate(PLANS):
            print(f"plan {n}: {launched} ops launched, {sum(left.values())} Python launches", file=sys.stderr)
            for op_type, count in left.most_common():
                print(f"    {count:3d} {op_type}", file=sys.stderr)


if __name__ == "__main__":
    main()
