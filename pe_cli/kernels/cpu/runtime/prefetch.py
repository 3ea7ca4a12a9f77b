"""A hint for the numba loops whose rows are scattered over a large table (lazy Adam's rows, an
embedding's ids): ``prefetch_row(array, row)`` asks the CPU to start loading a row some iterations
before the loop reaches it. It computes nothing, never faults, and leaves every result as it was."""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch_row(typingctx, array, row):
    """A hint to the CPU (LLVM's llvm.prefetch, for a write, kept in every cache level) to start
    loading the first line of row ``row`` of the 2-D ``array``; it computes nothing and never faults."""

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        offset = builder.mul(row, builder.extract_value(ary.strides, 0))
        line = builder.gep(builder.bitcast(ary.data, i8p), [offset])
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0i8"
        )
        builder.call(fn, [line, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(array, row), codegen
