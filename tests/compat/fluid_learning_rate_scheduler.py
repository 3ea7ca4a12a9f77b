# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_learning_rate_scheduler.py @ a8c86c202b568570105f8284032749f9b92ad0c3
# Re-written for pe (the static-graph decays against the same Python formulas; fewer steps), run with `pe fluid`.
import math
import paddle.fluid as fluid
import paddle.fluid.layers as layers


def exponential_decay(lr, step, decay_steps, decay_rate, staircase=False):
    exponent = step / decay_steps
    return lr * decay_rate ** (math.floor(exponent) if staircase else exponent)


def natural_exp_decay(lr, step, decay_steps, decay_rate, staircase=False):
    exponent = step / decay_steps
    return lr * math.exp(-1 * decay_rate * (math.floor(exponent) if staircase else exponent))


def inverse_time_decay(lr, step, decay_steps, decay_rate, staircase=False):
    t = step / decay_steps
    return lr / (1 + decay_rate * (math.floor(t) if staircase else t))


def piecewise_decay(step, boundaries, values):
    for i, b in enumerate(boundaries):
        if step < b:
            return values[i]
    return values[-1]


def cosine_decay(lr, step, step_each_epoch, epochs):
    epoch = math.floor(step / step_each_epoch)
    return lr * 0.5 * (math.cos(epoch * math.pi / epochs) + 1)


CASES = [
    (exponential_decay, dict(learning_rate=1.0, decay_steps=5, decay_rate=0.5, staircase=False)),
    (exponential_decay, dict(learning_rate=1.0, decay_steps=5, decay_rate=0.5, staircase=True)),
    (natural_exp_decay, dict(learning_rate=1.0, decay_steps=5, decay_rate=0.5, staircase=False)),
    (inverse_time_decay, dict(learning_rate=1.0, decay_steps=5, decay_rate=0.5, staircase=True)),
    (piecewise_decay, dict(boundaries=[3, 6, 9], values=[0.1, 0.2, 0.3, 0.4])),
    (cosine_decay, dict(learning_rate=0.1, step_each_epoch=3, epochs=10)),
]
for python_fn, kwargs in CASES:
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        decayed_lr = getattr(layers, python_fn.__name__)(**kwargs)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    args = dict(kwargs)
    if "learning_rate" in args:
        args["lr"] = args.pop("learning_rate")
    for step in range(12):
        (lr_val,) = exe.run(main, feed={}, fetch_list=[decayed_lr])
        expected = python_fn(step=step, **args)
        assert abs(float(lr_val[0]) - expected) < 1e-6, (python_fn.__name__, step, lr_val, expected)
print("ok")
