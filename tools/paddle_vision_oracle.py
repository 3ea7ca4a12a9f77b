"""Records Paddle 2.6.2's outputs of tests/data/paddle_vision/models_case.py (the paddle.vision.models
architectures, scaled down, with seeded weights) into tests/data/paddle_vision/models_paddle.json,
which tests/paddle/test_vision_models.py compares pe's against. Run with the oracle's Python:

    /tmp/paddle26/bin/python tools/paddle_vision_oracle.py
"""

import json
import os
import runpy
import sys

import numpy.random  # noqa: F401 -- before paddle, as the oracle needs

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "paddle_vision")


def main():
    import contextlib
    import io

    buf = io.StringIO()
    sys.argv = ["models_case.py"]
    with contextlib.redirect_stdout(buf):
        runpy.run_path(os.path.join(HERE, "models_case.py"), run_name="__main__")
    values = json.loads(buf.getvalue().strip().splitlines()[-1])
    target = os.path.join(HERE, "models_paddle.json")
    with open(target + ".tmp", "w", encoding="utf-8") as f:
        json.dump(values, f)
        f.write("\n")
    os.replace(target + ".tmp", target)
    print(f"recorded {len(values)} architectures into {target}")


if __name__ == "__main__":
    main()
