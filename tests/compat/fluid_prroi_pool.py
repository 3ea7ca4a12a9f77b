# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_prroi_pool_op.py @ 00d86b64bb8bd4d1f711321ae58470c79634de5d
# Re-written for pe (the public-API parts: run_net and test_errors of both cases; the OpTest output and
# gradient checks are pe's op cases), run with `pe fluid`.
import numpy as np

import paddle.fluid as fluid
from paddle.fluid import Program, program_guard

batch_size, channels, height, width = 3, 3 * 2 * 2, 6, 4
spatial_scale, pooled_height, pooled_width = 1.0 / 4.0, 2, 2
x_np = np.random.random([batch_size, channels, height, width]).astype("float32")


def make_rois():
    rois, rois_lod = [], []
    for bno in range(batch_size):
        rois_lod.append(bno + 1)
        for i in range(bno + 1):
            x1 = np.random.uniform(0, width // spatial_scale - pooled_width)
            y1 = np.random.uniform(0, height // spatial_scale - pooled_height)
            x2 = np.random.uniform(x1 + pooled_width, width // spatial_scale)
            y2 = np.random.uniform(y1 + pooled_height, height // spatial_scale)
            rois.append([bno, x1, y1, x2, y2])
    return np.array(rois).astype("float32"), rois_lod


def run_net_lod(place):
    rois_np, rois_lod = make_rois()
    with program_guard(Program(), Program()):
        x = fluid.layers.data(name="X", shape=[channels, height, width], dtype="float32")
        rois = fluid.layers.data(name="ROIs", shape=[4], dtype="float32", lod_level=1)
        output = fluid.layers.prroi_pool(x, rois, 0.25, 2, 2)
        loss = fluid.layers.mean(output)
        optimizer = fluid.optimizer.SGD(learning_rate=1e-3)
        optimizer.minimize(loss)
        input_x = fluid.create_lod_tensor(x_np, [], place)
        input_rois = fluid.create_lod_tensor(rois_np[:, 1:5], [rois_lod], place)
        exe = fluid.Executor(place)
        exe.run(fluid.default_startup_program())
        exe.run(fluid.default_main_program(), {"X": input_x, "ROIs": input_rois})


def run_net_tensor_rois(place):
    rois_np, rois_lod = make_rois()
    rois_index = np.array(rois_lod).reshape([-1]).astype(np.int64)
    with program_guard(Program(), Program()):
        x = fluid.layers.data(name="X", shape=[channels, height, width], dtype="float32")
        rois = fluid.layers.data(name="ROIs", shape=[4], dtype="float32")
        rois_idx = fluid.layers.data(name="rois_idx", shape=[], dtype="int64")
        output = fluid.layers.prroi_pool(x, rois, 0.25, 2, 2, batch_roi_nums=rois_idx)
        loss = fluid.layers.mean(output)
        optimizer = fluid.optimizer.SGD(learning_rate=1e-3)
        optimizer.minimize(loss)
        exe = fluid.Executor(place)
        exe.run(fluid.default_startup_program())
        exe.run(fluid.default_main_program(), {"X": x_np, "ROIs": rois_np[:, 1:5], "rois_idx": rois_index})


def check_errors():
    with program_guard(Program(), Program()):
        x = fluid.layers.data(name="x", shape=[245, 30, 30], dtype="float32")
        rois = fluid.layers.data(name="rois", shape=[4], dtype="float32", lod_level=1)
        for args in (
            (x, rois, 2, 7, 7),  # spatial_scale must be float type
            (x, rois, 0.25, 0.7, 7),  # pooled_height must be int type
            (x, rois, 0.25, 7, 0.7),
        ):  # pooled_width must be int type
            try:
                fluid.layers.prroi_pool(*args)
            except TypeError:
                pass
            else:
                raise AssertionError("prroi_pool%r did not raise TypeError" % (args[2:],))


places = [fluid.CPUPlace()]
if fluid.core.is_compiled_with_cuda():
    places.append(fluid.CUDAPlace(0))
for place in places:
    run_net_lod(place)
    run_net_tensor_rois(place)
check_errors()
print("ok")
