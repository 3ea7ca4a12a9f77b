"""Builds scaled-down paddle.vision.models architectures in static mode, fills every parameter and
buffer (in the order of their structured names) with seeded uniform values, runs one seeded input and
prints {model: [output values]} as JSON. Runs unchanged on Paddle 2.6.2 (``python models_case.py``,
tools/paddle_vision_oracle.py records its output) and under ``pe fluid`` (tests/paddle/test_vision_models.py)."""
import json
import sys

import numpy as np
import paddle
from paddle import concat
from paddle.vision import models

CASES = {  # name: (builder, input shape); num_classes=0 cases print the channel means
    "lenet": (lambda: models.LeNet(), [2, 1, 28, 28]),
    "resnet18": (lambda: models.resnet18(num_classes=10), [1, 3, 32, 32]),
    "resnext50_32x4d": (lambda: models.resnext50_32x4d(num_classes=10), [1, 3, 32, 32]),
    "vgg11_bn": (lambda: models.vgg11(batch_norm=True, num_classes=0), [1, 3, 32, 32]),
    "mobilenet_v1": (lambda: models.mobilenet_v1(scale=0.25, num_classes=10), [2, 3, 64, 64]),
    "mobilenet_v2": (lambda: models.mobilenet_v2(scale=0.35, num_classes=10), [2, 3, 64, 64]),
    "alexnet": (lambda: models.alexnet(num_classes=0), [1, 3, 224, 224]),
    "squeezenet1_0": (lambda: models.squeezenet1_0(num_classes=10), [1, 3, 96, 96]),
    "squeezenet1_1": (lambda: models.squeezenet1_1(num_classes=10), [1, 3, 96, 96]),
    "mobilenet_v3_small": (lambda: models.mobilenet_v3_small(scale=0.5, num_classes=10), [2, 3, 64, 64]),
    "mobilenet_v3_large": (lambda: models.mobilenet_v3_large(scale=0.35, num_classes=10), [1, 3, 64, 64]),
    "shufflenet_v2_x0_25": (lambda: models.shufflenet_v2_x0_25(num_classes=10), [2, 3, 64, 64]),
    "shufflenet_v2_swish": (lambda: models.shufflenet_v2_swish(num_classes=0), [1, 3, 64, 64]),
    "densenet121": (lambda: models.densenet121(num_classes=10), [2, 3, 64, 64]),
    "googlenet": (lambda: models.googlenet(num_classes=10), [1, 3, 192, 192]),
    "inception_v3": (lambda: models.inception_v3(num_classes=10), [2, 3, 75, 75]),
}

paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
out = {}
for name in sys.argv[1:] or CASES:
    build, shape = CASES[name]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        model = build()
        model.eval()
        x = paddle.static.data("x", shape, "float32")
        y = model(x)
        y = concat(y, axis=1) if isinstance(y, (list, tuple)) else y     # GoogLeNet: [out, out1, out2]
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        named = sorted(list(model.named_parameters()) + list(model.named_buffers()), key=lambda kv: kv[0])
        for i, (key, var) in enumerate(named):
            value = np.random.RandomState(i).uniform(-0.2, 0.2, var.shape)
            if key.endswith("_variance"):
                value = np.abs(value) + 0.5
            scope.find_var(var.name).get_tensor().set(value.astype("float32"), paddle.CPUPlace())
        feed = np.random.RandomState(99).uniform(-1, 1, shape).astype("float32")
        got, = exe.run(main, feed={"x": feed}, fetch_list=[y])
    got = np.asarray(got)
    out[name] = [float(v) for v in (got.mean(axis=(2, 3)) if got.ndim == 4 else got).reshape(-1)]
print(json.dumps(out))
