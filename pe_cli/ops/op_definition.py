"""What the registry holds for an op type: ``OpDef`` (its slots, attributes, inference rule, gradient
maker, kernels (a structured kernel bound by object, or a kernel module named) and the traits and run-time
needs it declares) and ``Slot`` (one input or output slot as ``register`` spells it). ``define.register``
makes them; import them from define.py."""

import importlib
from dataclasses import dataclass, field

from ..base.errors import PeError


@dataclass(frozen=True)
class Slot:
    name: str
    duplicable: bool = False
    optional: bool = False

    @staticmethod
    def parse(spec):
        if spec.endswith("*?"):
            return Slot(spec[:-2], duplicable=True, optional=True)
        if spec.endswith("*"):
            return Slot(spec[:-1], duplicable=True)
        if spec.endswith("?"):
            return Slot(spec[:-1], optional=True)
        return Slot(spec)


@dataclass
class OpDef:
    type: str
    inputs: tuple
    outputs: tuple
    attrs: dict
    infer: object  # infer(ctx): sets output shapes and dtypes; raises on mismatch
    grad: object = None  # grad(g): appends the grad ops (see backward.GradContext)
    kernel_module: str = ""  # kernels live in pe_cli.kernels.<device>.<kernel_module>
    kernel_name: str = ""  # the kernel function's name there (the op type unless aliased)
    needs_rng: bool = False  # the kernel's context holds a seeded numpy Generator (ctx.rng)
    doc: str = ""
    traits: frozenset = frozenset()  # what other parts ask of an op type instead of naming it (TRAITS)
    grad_reads: tuple = ()  # forward slots (inputs or outputs) whose values the grad ops read
    lod: object = "keep"  # how LoD passes at run time (see LOD_RULES)
    needs_lod: bool = False  # the kernel reads its inputs' LoD from ctx.lod (slot -> offsets)
    inplace: tuple = ()  # (output slot, input slot): the kernel may write that output over that input
    channels_last: tuple = ()  # image slots an NHWC data_format transposes around the NCHW kernel (kernels/layout.py)
    blocked: object = None  # blocked(op) -> groups of slots that may hold blocked values (kernels/cpu/blocked.py)
    no_need_buffer: tuple = ()  # input slots whose shapes alone its kernels read, never their values
    attr_tensors: dict = field(default_factory=dict)  # slot -> the attribute its tensor gives (kernels/tensor_attrs.py)
    last_axis: tuple = ()  # slots transposed to have attrs['axis'] last around the kernel (kernels/layout.py)
    first_axis: tuple = ()  # slots transposed to have attrs['axis'] first around the kernel (kernels/layout.py)
    reads_outputs: tuple = ()  # output slots whose value before the op (if any) its kernel gets as an input
    run_dtypes: dict = field(default_factory=dict)  # slot -> the dtypes its kernels take, checked when run
    run_lod: dict = field(default_factory=dict)  # slot -> None, or the slot that stands in for its LoD
    run_infer: bool = False  # its infer rule runs again on the values (ctx.is_runtime) before its kernel
    structured: object = None  # its structured kernel (shapes/structured.py): meta rule and out-kernels, by object
    _kernels: dict = field(default_factory=dict)

    def has(self, trait):
        return trait in self.traits

    def default_attrs(self):
        """Every attribute's default value, a fresh copy per call (a list default is never shared)."""
        out = {}
        for name, spec in self.attrs.items():
            if not spec.fill:
                continue
            default = spec.default() if callable(spec.default) else spec.default
            out[name] = list(default) if isinstance(default, list) else default
        return out

    def kernel(self, device="cpu", blocked=False):
        """The kernel for this op on a device kind ('cpu' or 'cuda'), ``kernel(ins, attrs[, ctx])``, made on
        first use: its structured kernel's meta rule and out-kernel for that device where it has one
        (kernels/structured.adapter), else imported from its kernel module; ``blocked``: its kernel on
        blocked values (same name, in pe_cli/kernels/<device>/blocked.py)."""
        fn = self._kernels.get((device, blocked))
        if fn is None:
            out = None if blocked or self.structured is None else self.structured.out_kernel(device)
            if out is not None:
                fn = importlib.import_module("pe_cli.kernels.structured").adapter(
                    self.structured.meta, out, self.kernel_name
                )
            else:
                fn = self._module_kernel(device, blocked)
            fn = self._kernels[(device, blocked)] = self._wrapped(fn, device, blocked)
        return fn

    def step_kernel(self, device="cpu", blocked=False, tensor_attrs=True):
        """The kernel an executor step of this op runs (executor/plan.py's OpStep, one per step): a structured
        op's meta rule kept per shape signature of its inputs and its out-kernel (kernels/structured.step_kernel,
        its run-time dtype checks made with each meta), where it has one for ``device`` and nothing wraps its
        kernel but those checks and the layouts: its NHWC transposes (``channels_last``) and the layout that moves
        its ``axis`` (last_axis, first_axis), around the step's kernel as around ``kernel`` (the signature that of
        the values the kernel sees: NCHW, the axis moved), and its ``attr_tensors`` where the step's op gives
        none of them (``tensor_attrs`` False: its attributes are its own, not values of a run); else ``kernel``."""
        if not self.steps_structured(device, blocked, tensor_attrs):
            return self.kernel(device, blocked)
        out = self.structured.out_kernel(device)
        check = importlib.import_module("pe_cli.kernels.run_checks").dtypes_check(self) if self.run_dtypes else None
        if self.run_lod:  # (its LoD checks too: the step's Meta is kept per LoD, steps_structured)
            check = importlib.import_module("pe_cli.kernels.run_checks").step_checks(self)
        fn = importlib.import_module("pe_cli.kernels.structured").step_kernel(
            self.structured.meta, out, self.kernel_name, check, self.needs_lod
        )
        if self.channels_last:
            fn = importlib.import_module("pe_cli.kernels.layout").channels_last(fn, device, self.channels_last)
        for slots, first in ((self.last_axis, False), (self.first_axis, True)):
            if slots:
                fn = importlib.import_module("pe_cli.kernels.layout").along_axis(fn, device, slots, first=first)
        return fn

    def steps_structured(self, device="cpu", blocked=False, tensor_attrs=True):
        """Whether ``step_kernel`` is the structured step (its meta rule and out-kernel; a context it reads
        only the fixed facts and the call's leaves of, ``inplace`` and ``update_in_place``) rather than ``kernel``."""
        if blocked or self.structured is None or self.structured.out_kernel(device) is None:
            return False
        wrappers = self._wrappers(blocked) - ({"attr_tensors"} if not tensor_attrs else set())
        allowed = {"run_dtypes", "channels_last", "last_axis", "first_axis"} | (
            {"run_lod"} if self.needs_lod else set()
        )
        return not wrappers - allowed

    def _module_kernel(self, device, blocked):
        module_name = "blocked" if blocked else self.kernel_module
        fn = importlib.import_module("pe_cli.kernels").kernel_of(device, module_name, self.kernel_name)
        if fn is None:
            raise PeError(
                f"op '{self.type}' has no {device} kernel "
                f"(expected {self.kernel_name}() or a HOST_OPS row in pe_cli/kernels/{device}/{module_name}.py)"
            )
        return fn

    def _wrappers(self, blocked):
        """The wrappers around this op's kernel (its layouts, its attributes given by tensors, its run checks)."""
        found = set()
        if not blocked:
            found.update(n for n in ("channels_last", "last_axis", "first_axis") if getattr(self, n))
        found.update(n for n in ("attr_tensors", "run_dtypes", "run_lod") if getattr(self, n))
        if self.run_infer:
            found.add("run_infer")
        return found

    def _wrapped(self, fn, device, blocked):
        if self.channels_last and not blocked:
            fn = importlib.import_module("pe_cli.kernels.layout").channels_last(fn, device, self.channels_last)
        if self.last_axis and not blocked:
            fn = importlib.import_module("pe_cli.kernels.layout").along_axis(fn, device, self.last_axis)
        if self.first_axis and not blocked:
            fn = importlib.import_module("pe_cli.kernels.layout").along_axis(fn, device, self.first_axis, first=True)
        if self.attr_tensors:
            fn = importlib.import_module("pe_cli.kernels.tensor_attrs").from_tensors(fn, device, self.attr_tensors)
        if self.run_dtypes or self.run_lod or self.run_infer:
            fn = importlib.import_module("pe_cli.kernels.run_checks").checked(fn, self)
        return fn

    def input_slot(self, name):
        return next(s for s in self.inputs if s.name == name)
