"""A Paddle 2.x static script as its users write it: paddle.seed(0), a Conv2D + Linear network with its
layers' default initializers, Adam, three steps on fixed data; prints the losses as a JSON list.
tools/paddle_random_oracle.py records what Paddle 2.6.2 prints; tests/paddle/test_paddle_random.py runs
it unchanged under ``pe fluid``."""

import json

import numpy as np
import paddle

paddle.enable_static()
paddle.seed(0)

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    image = paddle.static.data("image", [None, 1, 8, 8], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    conv = paddle.nn.Conv2D(1, 4, 3, padding=1)
    fc = paddle.nn.Linear(4 * 4 * 4, 10)
    h = paddle.nn.functional.max_pool2d(paddle.nn.functional.relu(conv(image)), 2)
    logits = fc(paddle.flatten(h, 1))
    loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, label))
    paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
data = np.random.RandomState(1)
images = data.uniform(-1, 1, (3, 16, 1, 8, 8)).astype("float32")
labels = data.randint(0, 10, (3, 16, 1)).astype("int64")
losses = []
for step in range(3):
    (value,) = exe.run(main, feed={"image": images[step], "label": labels[step]}, fetch_list=[loss])
    losses.append(float(value))
print(json.dumps(losses))
