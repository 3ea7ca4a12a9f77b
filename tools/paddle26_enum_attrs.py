"""What Paddle 2.6.2 does with an enum-valued op attribute outside the values it distinguishes (issue 96,
item 4): each case builds a small static program, sets one attribute of one op to the value, runs it on the
CPU and prints what happened (ran: the output's shape and sum; error: the exception's class; crash: the
process's signal). Each case runs in a child process (a bad ``pad3d`` mode crashes Paddle). The table is
docs/COMPAT.md's ("Enum attributes"); nothing here runs in CI.

    /work/p26/bin/python tools/paddle26_enum_attrs.py [CASE ...]"""

import subprocess
import sys

CHILD = r"""
import numpy as np
import paddle
paddle.enable_static()
F = paddle.nn.functional
case, op_type, attr, value = sys.argv[1:5]


def raw(block, x, op, attrs, out_shape=None):
    out = block.create_var(name="out", dtype="float32")
    block.append_op(type=op, inputs={"X": [x]}, outputs={"Out": [out]}, attrs=attrs)
    return out


BUILD = {
    "pool2d": lambda x: F.max_pool2d(x, 2, 2),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 2, 2),
    "pool3d": lambda x: F.max_pool3d(paddle.unsqueeze(x, 2), 1, 1),
    "conv2d": lambda x: paddle.static.nn.conv2d(x, 2, 3),
    "conv3d": lambda x: paddle.static.nn.conv3d(paddle.unsqueeze(x, 2), 2, 1),
    "conv2d_transpose": lambda x: paddle.static.nn.conv2d_transpose(x, 2, filter_size=3),
    "depthwise_conv2d": lambda x: paddle.static.nn.conv2d(x, 2, 3, groups=2),
    "max_pool2d_with_index": lambda x: F.max_pool2d(x, 2, 2, return_mask=True)[0],
    "bilinear_interp_v2": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
    "nearest_interp_v2": lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
    "batch_norm": lambda x: paddle.static.nn.batch_norm(x),
    "group_norm": lambda x: paddle.static.nn.group_norm(x, 2),
    "softmax": lambda x: F.softmax(x),
    "transpose2": lambda x: paddle.transpose(x, [0, 1, 3, 2]),
    "pad3d": lambda x: F.pad(x, [1, 1, 1, 1], mode="reflect"),
    "grid_sampler": lambda x: F.grid_sample(x, paddle.zeros([1, 3, 3, 2])),
    "prelu": lambda x: paddle.static.nn.prelu(x, "channel"),
    "pixel_shuffle": lambda x: F.pixel_shuffle(paddle.tile(x, [1, 2, 1, 1]), 2),
    "lrn": lambda x: F.local_response_norm(x, 3),
    "affine_channel": None,
}
main, start = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, start):
    x = paddle.static.data("x", [1, 2, 5, 5], "float32")
    y = BUILD[op_type](x)
for op in main.global_block().ops:
    if op.type == op_type or (op_type == "avg_pool2d" and op.type == "pool2d"):
        op._set_attr(attr, value)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(start)
try:
    (out,) = exe.run(main, feed={"x": np.arange(50, dtype="float32").reshape(1, 2, 5, 5)}, fetch_list=[y])
    print("RESULT ran", list(out.shape), round(float(out.astype("float64").sum()), 3))
except Exception as e:
    print("RESULT error", type(e).__name__)
"""

CASES = [
    ("pool2d", "padding_algorithm", "EXPLICIT"),
    ("pool2d", "padding_algorithm", "BOGUS"),
    ("pool2d", "padding_algorithm", "same"),
    ("pool2d", "data_format", "NCHW"),
    ("pool2d", "data_format", "BOGUS"),
    ("pool2d", "data_format", "AnyLayout"),
    ("pool2d", "data_format", "nhwc"),
    ("pool2d", "pooling_type", "BOGUS"),
    ("avg_pool2d", "pooling_type", "AVG"),
    ("pool3d", "padding_algorithm", "BOGUS"),
    ("pool3d", "data_format", "BOGUS"),
    ("conv2d", "padding_algorithm", "EXPLICIT"),
    ("conv2d", "padding_algorithm", "BOGUS"),
    ("conv2d", "data_format", "NCHW"),
    ("conv2d", "data_format", "BOGUS"),
    ("conv2d", "data_format", "AnyLayout"),
    ("conv2d", "data_format", "NDHWC"),
    ("conv2d", "data_format", "nhwc"),
    ("depthwise_conv2d", "padding_algorithm", "BOGUS"),
    ("conv3d", "padding_algorithm", "BOGUS"),
    ("conv3d", "data_format", "BOGUS"),
    ("conv2d_transpose", "padding_algorithm", "BOGUS"),
    ("conv2d_transpose", "data_format", "BOGUS"),
    ("max_pool2d_with_index", "padding_algorithm", "BOGUS"),
    ("max_pool2d_with_index", "data_format", "BOGUS"),
    ("bilinear_interp_v2", "interp_method", "BOGUS"),
    ("bilinear_interp_v2", "data_layout", "BOGUS"),
    ("nearest_interp_v2", "interp_method", "bilinear"),
    ("batch_norm", "data_layout", "BOGUS"),
    ("batch_norm", "data_layout", "nchw"),
    ("group_norm", "data_layout", "BOGUS"),
    ("softmax", "data_format", "BOGUS"),
    ("softmax", "data_format", "NCDHW"),
    ("transpose2", "data_format", "BOGUS"),
    ("pad3d", "mode", "BOGUS"),
    ("pad3d", "data_format", "BOGUS"),
    ("grid_sampler", "mode", "BOGUS"),
    ("grid_sampler", "padding_mode", "BOGUS"),
    ("prelu", "mode", "BOGUS"),
    ("prelu", "data_format", "BOGUS"),
    ("pixel_shuffle", "data_format", "BOGUS"),
    ("lrn", "data_format", "BOGUS"),
]


def main(names):
    print("| op | attribute | value | Paddle 2.6.2 |\n|---|---|---|---|")
    for op_type, attr, value in CASES:
        if names and op_type not in names:
            continue
        run = subprocess.run(
            [sys.executable, "-c", "import sys\n" + CHILD, "case", op_type, attr, value],
            capture_output=True,
            text=True,
            timeout=300,
        )
        lines = [x for x in run.stdout.splitlines() if x.startswith("RESULT ")]
        what = lines[-1][len("RESULT ") :] if lines else f"crash (exit {run.returncode})"
        print(f"| {op_type} | {attr} | {value} | {what} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
