"""Paddle 2.6.2's answers to a Paddle 2.x program's version checks, recorded for tests/fluid/test_program_version.py
(issue 96): SCRIPT (a static Paddle 2.x program that reads ``paddle.__version__``, ``paddle.__git_commit__``,
``paddle.version``'s fields and functions, ``paddle.version.show()``, ``paddle.inference.get_version()`` and ``paddle.base.require_version``) runs
on Paddle 2.6.2; its stdout goes to tests/data/paddle_oracle/version26.json with the script. The test runs the
same script under ``pe fluid`` and compares stdout. CI never needs Paddle.

    /work/p26/bin/python tools/paddle26_version.py
"""

import json
import os
import subprocess
import sys
import tempfile

OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "paddle_oracle", "version26.json"
)

SCRIPT = """\
import numpy as np
import paddle
import paddle.version

if paddle.__version__ >= "2.0.0":
    paddle.enable_static()
print("__version__", paddle.__version__)
print("__git_commit__", paddle.__git_commit__)
for name in ("full_version", "major", "minor", "patch", "rc", "istaged", "commit", "with_mkl"):
    print(name, repr(getattr(paddle.version, name)))
for name in ("cuda", "cudnn", "xpu", "xpu_xccl", "cinn", "mkl"):
    print(name + "()", repr(getattr(paddle.version, name)()))
paddle.version.show()
print(repr(paddle.inference.get_version()))
major, minor = (int(p) for p in paddle.__version__.split(".")[:2])
print("2.x" if (major, minor) >= (2, 0) else "1.x")
paddle.base.require_version("1.8.0")
try:
    paddle.base.require_version("2.7.0")
except Exception as e:
    print(e)
x = paddle.static.data("x", [3], "int64")
exe = paddle.static.Executor(paddle.CPUPlace())
print(exe.run(feed={"x": np.array([-4, 0, -8])}, fetch_list=[x // 3])[0].tolist())
"""


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "version_check.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(SCRIPT)
        proc = subprocess.run(
            [sys.executable, path],
            capture_output=True,
            text=True,
            check=True,
            env=dict(os.environ, GLOG_minloglevel="2"),
        )
    import paddle

    data = {"engine": f"paddlepaddle {paddle.__version__}", "script": SCRIPT, "stdout": proc.stdout}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(proc.stdout)


if __name__ == "__main__":
    main()
