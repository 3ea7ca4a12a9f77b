# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_run_load_infer_program.py @ 21212e7582f481006dcc91446009f49b501ddae7
# Re-written for pe (same API calls, same facts), run with `pe fluid` (the stored file's merge-conflict
# markers resolved to the one meaning both sides share). Facts: simple_fc_net's loss on init_data's 32
# samples fed through a DataFeeder, run by an Executor and saved with save_inference_model (one model
# file and one params file), is loaded with load_inference_model and run by a ParallelExecutor over the
# loaded program to exactly the same loss. simple_fc_net and init_data are simple_nets.py's (in
# _parallel_executor_base.py); the harness's CPU_NUM (1) is kept, as the original sets none.
import paddle.fluid as fluid
from _parallel_executor_base import init_data, simple_fc_net

save_dirname = "./"
model_filename = "test_parallel_executor_run_load_infer_program_model"
params_filename = "test_parallel_executor_run_load_infer_program_parameter"
place = fluid.CPUPlace()
exe = fluid.Executor(place)
img, label = init_data()
batch_data = [[i, lab] for i, lab in zip(img, label)]


def run_with_executor():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = simple_fc_net()
    feed_vars = [main.global_block().var(var_name) for var_name in ["image", "label"]]
    feeder = fluid.DataFeeder(place=place, feed_list=feed_vars)
    exe.run(startup)
    loss_data = exe.run(main, feed=feeder.feed(batch_data), fetch_list=[loss.name])
    fluid.io.save_inference_model(
        save_dirname,
        ["image", "label"],
        [loss],
        exe,
        model_filename=model_filename,
        params_filename=params_filename,
        main_program=main,
    )
    return loss_data


exe_loss = run_with_executor()
[inference_program, feed_target_names, fetch_targets] = fluid.io.load_inference_model(
    save_dirname, exe, model_filename, params_filename
)
train_exe = fluid.ParallelExecutor(use_cuda=False, main_program=inference_program)
feed_vars = [inference_program.global_block().var(var_name) for var_name in ["image", "label"]]
feeder = fluid.DataFeeder(place=place, feed_list=feed_vars)
pe_loss = train_exe.run(feed=feeder.feed(batch_data), fetch_list=[fetch_targets[0].name])
assert exe_loss == pe_loss, (exe_loss, pe_loss)
print("ok")
