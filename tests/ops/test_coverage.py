"""Every op in the registry is tested: a forward case for each op users build, and a float64
finite-difference gradient case for each op that has a gradient. Grad ops themselves are run
by the gradient cases of their forward op. Every case lives in the cases file of its op's family."""

import importlib
import pkgutil

import tests.ops as _pkg
from pe_cli.ops import registry
from tests.ops.test_ops import CASES

# Ops exercised elsewhere than the op cases, and why.
COVERED_ELSEWHERE = {
    "load": "tests/layers/test_load_layer.py: files written by save_vars and by the LoDTensor codec read back "
    "(values, LoD, float16), and the errors of missing and truncated files; tests/io/test_save_load_ops.py "
    "(seek and shape)",
    **{
        t: "tests/io/test_save_load_ops.py: in programs, files (and bytes) in Fluid's formats written and read back"
        for t in ("save", "save_combine", "load_combine")
    },
    **{
        t: "tests/io/test_save_load_ops.py: a program holding them runs as Fluid's executor runs it; their kernels "
        "read and write the holders"
        for t in ("feed", "fetch")
    },
    "read_file": "tests/kernels/test_structured_host_ops.py (a file's bytes, an empty file, a missing file and a "
    "directory refused) and tests/paddle/test_vision_ops.py (paddle.vision.ops.read_file, Paddle 2.6.2's values)",
    "lr_schedule": "tests/layers/test_lr_schedules.py checks every schedule kind against its formula",
    "increment": "tests/layers/test_lr_schedules.py: the step counter advances once per run",
    "send": "tests/transpiler/test_pserver.py: trainers and servers under mpiexec equal one process",
    "recv": "tests/transpiler/test_pserver.py",
    "send_barrier": "tests/transpiler/test_pserver.py",
    "fetch_barrier": "tests/transpiler/test_pserver.py",
    "listen_and_serv": "tests/transpiler/test_pserver.py (a server's program; Executor.run serves it)",
    "split_byref": "tests/transpiler/test_pserver.py (the split kernel, whose cases are in cases_manipulation.py)",
    **{
        t: "tests/fluid/test_service_ops.py: built with Fluid's attributes, through a ProgramDesc and back, and "
        "run: one line naming the op and the service it needs (BoxPS, pslib, Fluid's gRPC parameter servers)"
        for t in (
            "pull_box_sparse",
            "pull_sparse",
            "pull_sparse_v2",
            "push_box_sparse",
            "push_sparse",
            "push_sparse_v2",
            "push_dense",
            "distributed_lookup_table",
            "prefetch",
            "checkpoint_notify",
            "recv_save",
            "fl_listen_and_serv",
        )
    },
    "lookup_sparse_table": "tests/fluid/test_sparse_table_ops.py: its table (W) outgrows its rows across runs, "
    "which a fed SelectedRows cannot hold",
    **{
        t: "tests/layers/test_control_flow_while.py and _rnn.py (a sub-block, tensor arrays; recurrent: gradients "
        "against finite differences and the unrolled graph)"
        for t in (
            "while",
            "conditional_block",
            "recurrent",
            "create_array",
            "write_to_array",
            "read_from_array",
            "lod_array_length",
            "tensor_array_to_tensor",
            "dynamic_recurrent",
        )
    },
    "conditional_block_infer": "tests/fluid/test_programs_as_fluid_builds.py: a Fluid-saved inference model "
    "with one runs (conditional_block's kernel)",
    **{
        t: "tests/layers/test_control_flow_lod_rank.py: a While RNN built with them equals DynamicRNN, forward and "
        "every gradient (they take a rank table)"
        for t in (
            "lod_rank_table",
            "max_sequence_len",
            "lod_tensor_to_array",
            "array_to_lod_tensor",
            "shrink_rnn_memory",
            "reorder_lod_tensor_by_rank",
        )
    },
    **{
        t: "tests/fluid/test_collective_ops.py: a program of one process runs them (they write nothing), and "
        "nranks=2 is refused"
        for t in ("c_gen_nccl_id", "c_comm_init", "c_comm_init_all")
    },
    **{
        t: "tests/layers/test_py_reader.py: every run of a program reading a py_reader goes through them; "
        "tests/fluid/test_program_structure_as_fluid.py: where they are, and _inference_optimize removes them"
        for t in ("create_py_reader", "create_double_buffer_reader", "read")
    },
    "poisson": "forward: cases_random.py; its gradient is zero by definition (Paddle 2.6.2's poisson_grad), not a "
    "derivative: tests/paddle/test_paddle_function_oracle.py checks it against Paddle's",
    **{
        t: "forward: cases_complex.py; its gradient (complex-valued between real ends) is checked through chains "
        "of complex ops against Paddle 2.6.2 (tests/paddle/test_paddle_function_oracle.py) and finite differences "
        "(tests/paddle/test_tensor_complex.py)"
        for t in ("complex", "as_complex", "as_real", "real", "imag")
    },
    **{
        t: "forward: cases_linalg_decomposing.py; the gradient is Paddle's symmetric formula, no partial derivative "
        "of the one triangle read (finite differences do not apply): tests/ops/test_paddle26_grads.py checks it "
        "against Paddle 2.6.2's"
        for t in ("eigh", "eigvalsh")
    },
    **{
        t: "forward: cases_fft.py (Paddle 2.6.2's values); pe refuses its gradient in one line (the grad maker "
        "raises): tests/ops/test_fft_grad_refused.py"
        for t in ("fft_c2c", "fft_r2c", "fft_c2r", "stft")
    },
    "gumbel_softmax": "forward: cases_sampling.py (the draws' frequencies); its gradient (of a random Out, so no "
    "finite differences) against Paddle's formula on the run's Out: tests/ops/test_gumbel_softmax_grad.py",
    **{
        t: "forward: cases_linalg_decomposing.py (Paddle 2.6.2's values); pe refuses its gradient in one line (the "
        "grad maker raises): tests/paddle/test_linalg.py::test_gradient_refused_not_zero"
        for t in ("eig", "lu", "lu_unpack")
    },
    **{
        t: "forward: cases_sampling.py (the draws' distribution); the gradient to the overwritten input is zeros "
        "(a fill, Paddle's), not a derivative of a draw"
        for t in ("uniform_random_inplace", "gaussian_inplace")
    },
    "pylayer": "tests/paddle/test_static_pylayer.py: its forward block's values, and its gradient, which is not "
    "derived (no finite differences): the backward block Python built, by hand and by static_pylayer",
    "run_program": "tests/fluid/test_run_program.py: a static program holding it (forward and run_program_grad) "
    "equals the plain ops, and Fluid's dygraph runs it eagerly with another program's block; its "
    "gradient runs the gradient ops its block holds (no finite differences)",
    "get_places": "tests/layers/test_control_flow_cond_api.py (its output is a list of places, not a tensor)",
    "beam_search": "tests/layers/test_control_flow_beam_search.py: a hand-worked step (2-level LoD inputs)",
    "beam_search_decode": "tests/layers/test_control_flow_beam_search.py: two steps back-traced (tensor arrays)",
    "cvm": "forward: cases_cvm.py; its gradient is Fluid's rule (the CVM input on two columns), not a "
    "derivative: tests/layers/test_cvm.py checks it on the CPU and CUDA kernels",
    **{
        t: "forward: cases_quantization.py; the gradient is straight-through (X@GRAD = Out@GRAD), not a "
        "derivative: tests/fluid/contrib/test_quantize_transpiler.py checks the pass-through"
        for t in (
            "fake_quantize_abs_max",
            "fake_quantize_range_abs_max",
            "fake_quantize_moving_average_abs_max",
            "fake_dequantize_max_abs",
        )
    },
}


def _is_grad_op(op_type):
    return "_grad" in op_type


def forward_ops():
    return [t for t in registry.all_op_types() if not _is_grad_op(t)]


def test_every_forward_op_has_a_case():
    cased = {c.op for c in CASES}
    missing = [t for t in forward_ops() if t not in cased and t not in COVERED_ELSEWHERE]
    assert not missing, f"ops without an OpCase in tests/ops/cases_*.py: {missing}"


def test_every_differentiable_op_has_a_gradient_check():
    checked = {c.op for c in CASES if c.grad}
    missing = [
        t for t in forward_ops() if registry.get(t).grad is not None and t not in checked and t not in COVERED_ELSEWHERE
    ]
    assert not missing, f"ops with a gradient but no finite-difference case: {missing}"


# Cases files about a concept that crosses op families (not an op family), and why.
CROSS_FAMILY_FILES = {
    "cases_sparse": "SelectedRows (row-sparse) inputs through lookup_table, sgd, momentum, adam, adagrad, sum, "
    "scale and the selected_rows ops: one concept, several families",
    "cases_tensor_attrs": "attributes given by tensors (Fluid 1.8's AxesTensor, SectionsTensorList, Paddings, "
    "depth_tensor, Shape/Offsets, FactorTensor): one concept, several families",
    "cases_paddle2_attrs": "the attributes Paddle 2.x added or whose meaning it changed (gather's axis, NHWC "
    "pixel_shuffle, asvector, flatten, the 2.x pool divisor...): one concept, several families",
}


def test_every_case_lives_in_the_cases_file_of_its_family():
    """cases_<family>.py, or cases_<family>_<sub>.py for a family split by sub-concept, holds only cases of
    ops whose kernel_module is <family>: one family per file, named first."""
    misplaced = []
    for info in pkgutil.iter_modules(_pkg.__path__):
        if not info.name.startswith("cases_") or info.name in CROSS_FAMILY_FILES:
            continue
        stem = info.name[len("cases_") :]
        families = {
            registry.get(case.op).kernel_module for case in importlib.import_module(f"tests.ops.{info.name}").CASES
        }
        if len(families) > 1:
            misplaced.append(f"{info.name}.py: cases of several families {sorted(families)}")
        misplaced += [
            f"{info.name}.py: cases of family {f}, which the name does not begin with"
            for f in sorted(families)
            if stem != f and not stem.startswith(f + "_")
        ]
    assert not misplaced, "cases outside cases_<family of their op>[_<sub>].py:\n" + "\n".join(misplaced)
