"""Launch forms: the numba part of a CPU kernel, bound once for an op and the shapes and dtypes of
its values, for a planned step (pe_cli/executor/step_plan.py).

A structured op's form is its out-kernel's (``structured``), of the meta its step decided (no second
decision of the variant). A form ``FORMS[op_type](op, table)`` gets the op and ``table`` (name -> (shape, dtype) of every
value the step knows: fed, read from the scope, or set by the registry's shape inference for the
outputs) and returns a list of ``Launch``es, or None where the op has no launch form for those
values (it then runs as a Python launch, ``plan.run_step``). A form makes the choices the kernel
makes at each call (which loop, which view of its arrays, how a GEMM splits) once, and the kernel
calls the same loop when it runs unplanned: the two paths give the same bits. The serial loop is
launched where the kernel runs its numpy replica (while the loop compiles: the same bits), its
parallel twin where the kernel would run it on the device's threads when the step is planned (a
large update: the same bits as the serial loop, runtime/loops.py). (The GEMM ops' launches are their
out-kernels', kernels/cpu/gemm.py: a small GEMM that numpy's BLAS runs is launched as the same call
of numpy's BLAS from the blocked loop with one block.)

Arguments of a launch (``Launch.args``): ``("var", name, shape)``: the value of ``name`` (viewed
as ``shape`` when not None); ``("const", value)``: a number (or the GEMM's C function) compiled
into the step; ``("array", array)``: an array the plan keeps (an empty bias); ``("first", name,
dtype)``: the one value of the array ``name`` as a ``dtype`` scalar (a learning rate)."""

from .runtime.loops import lazy

_pointwise = lazy("_pointwise_loops")


# -- structured ops ---------------------------------------------------------------------------------


def structured(op, table, meta, out_kernel):
    """The launches of a structured op (pe_cli/shapes/structured.py) for the variant its meta rule chose:
    its out-kernel's own launch form (``out_kernel.launches``: the activation table's relu, relu_grad,
    tanh_grad, ... run their loop), or None: a Python launch of the out-kernel."""
    form = getattr(out_kernel, "launches", None)
    return None if form is None else form(op, table, meta)


FORMS = {f.__name__: f for f in ()}
