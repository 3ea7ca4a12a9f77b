"""Variables and Parameters: named, typed slots of a Block. Values live in a Scope, not here."""

from ..base import dtypes
from . import unique_name
from .var_desc import VarDesc


class Variable:
    def __init__(
        self,
        block,
        type=None,
        name=None,
        shape=None,
        dtype="float32",
        lod_level=0,
        capacity=None,
        persistable=False,
        error_clip=None,
        stop_gradient=False,
        is_data=False,
        need_check_feed=False,
        belong_to_optimizer=False,
        **kwargs,
    ):
        """Fluid's parameters in Fluid's order. ``capacity`` and ``**kwargs`` are accepted and unused,
        as in Fluid 1.8; ``error_clip`` (an ErrorClipByValue) clips this variable's gradient."""
        self.block = block
        self.name = name if name is not None else unique_name.generate("_generated_var")
        self.shape = tuple(shape) if shape is not None else None
        self.dtype = dtypes.convert_dtype(dtype)
        self.lod_level = lod_level if lod_level is not None else 0  # Fluid: None is level 0
        self.persistable = persistable
        self.stop_gradient = stop_gradient
        self.is_data = is_data
        self.need_check_feed = need_check_feed
        self.error_clip = error_clip
        self.belong_to_optimizer = belong_to_optimizer
        self.op = None  # the op that last wrote it, set by Block.append_op
        # VarType.LOD_TENSOR, or SELECTED_ROWS where shape inference knows the value is row-sparse
        self._type = type or dtypes.VarType.LOD_TENSOR
        self.reader_slots = {}  # a READER's values: {"shapes"|"dtypes"|"lod_levels": [one per value]}

    @property
    def type(self):
        return self._type

    @property
    def desc(self):
        """Fluid's VarDesc face of this variable."""
        return VarDesc(self)

    @property
    def grad_name(self):
        """The name of this variable's gradient (Fluid's ``name@GRAD``)."""
        return self.name + "@GRAD"

    def _copy_fields(self):
        return dict(
            shape=self.shape,
            dtype=self.dtype,
            lod_level=self.lod_level,
            persistable=self.persistable,
            stop_gradient=self.stop_gradient,
            is_data=self.is_data,
            need_check_feed=self.need_check_feed,
            type=self._type,
            error_clip=self.error_clip,
        )

    def clone_into(self, block):
        return Variable(block, name=self.name, **self._copy_fields())

    def to_string(self, throw_on_error=False, with_details=False):
        """One line: name, dtype, shape, LoD level and flags; ``with_details`` adds the creating op
        and, for a parameter, how it trains (``details()``)."""
        shape = "?" if self.shape is None else "x".join(str(d) for d in self.shape)
        flags = [
            f
            for f, on in (
                ("persistable", self.persistable),
                ("data", self.is_data),
                ("stop_gradient", self.stop_gradient),
            )
            if on
        ]
        lod = f" lod_level={self.lod_level}" if self.lod_level else ""
        line = f"var {self.name} : {self.dtype}[{shape}]{lod}" + (f" ({', '.join(flags)})" if flags else "")
        if with_details:
            line += "".join(f" {k}={v}" for k, v in self.details().items())
        return line

    def _set_info(self, key, value):
        """Fluid's per-variable notes (a dict kept on the Python object, never saved)."""
        if not hasattr(self, "_info"):
            self._info = {}
        self._info[key] = value

    def _get_info(self, key):
        """The note ``key`` set by ``_set_info``, or None."""
        return getattr(self, "_info", {}).get(key)

    def details(self):
        return {"written_by": self.op.type if self.op is not None else None}

    __str__ = to_string

    def __repr__(self):
        return f"<Variable {self.name} {self.dtype}{list(self.shape or [])}>"

    # Operator sugar (``a + b``, ``2 * a``) is added by pe_cli.layers when it is imported, as Fluid's
    # layers.math_op_patch does: the operators build layers, and the IR sits below the layers.


VarDesc.new_variable = staticmethod(lambda name: Variable(None, name=name))


class Parameter(Variable):
    """A trainable, persistable variable with its initializer, regularizer and learning-rate scale."""

    def __init__(
        self,
        block,
        name,
        shape,
        dtype="float32",
        trainable=True,
        initializer=None,
        regularizer=None,
        optimize_attr=None,
        gradient_clip_attr=None,
        do_model_average=None,
        lod_level=0,
        need_clip=True,
    ):
        if shape is None:
            raise ValueError("The shape of Parameter should not be None")
        if dtype is None:
            raise ValueError("The dtype of Parameter should not be None")
        if len(shape) == 0 and not block.program._follows_paddle2:  # Paddle 2.6 has 0-D parameters
            raise ValueError("The dimensions of shape for Parameter must be greater than 0")
        if any(d < 0 for d in shape):
            raise ValueError(
                f"Each dimension of shape for Parameter must be greater than 0, but received {list(shape)}"
            )
        super().__init__(
            block,
            name=name,
            shape=shape,
            dtype=dtype,
            lod_level=lod_level,
            persistable=True,
            stop_gradient=not trainable,
        )
        self.trainable = trainable
        self.initializer = initializer
        self.regularizer = regularizer
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.gradient_clip_attr = gradient_clip_attr
        self.do_model_average = do_model_average
        self.need_clip = need_clip  # False: gradient clips leave this parameter's gradient as it is

    def clone_into(self, block):
        p = Parameter(
            block,
            self.name,
            self.shape,
            self.dtype,
            self.trainable,
            self.initializer,
            self.regularizer,
            dict(self.optimize_attr),
            self.gradient_clip_attr,
            self.do_model_average,
        )
        p.stop_gradient = self.stop_gradient
        p.lod_level = self.lod_level
        p.need_clip = self.need_clip
        return p

    def details(self):
        return dict(
            super().details(),
            trainable=self.trainable,
            optimize_attr=self.optimize_attr,
            regularizer=type(self.regularizer).__name__ if self.regularizer else None,
            gradient_clip_attr=type(self.gradient_clip_attr).__name__ if self.gradient_clip_attr else None,
            initializer=type(self.initializer).__name__ if self.initializer else None,
        )

    def __repr__(self):
        return f"<Parameter {self.name} {self.dtype}{list(self.shape)}>"


def position_of(variables, var):
    """Where ``var`` itself stands in ``variables`` (None: absent), by identity: ``==`` between two
    Variables builds an ``equal`` op (layers/math_op_patch.py), so ``in`` and ``list.index`` don't ask it."""
    return next((i for i, v in enumerate(variables) if v is var), None)
