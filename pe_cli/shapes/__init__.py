"""The meta home of each op family: shape, geometry and attribute rules with no device in them, one module
per family (conv_pool, manipulation, matrix, einsum, detection, ...). Shape inference (pe_cli/ops) and the
kernels of every device (pe_cli/kernels/cpu, pe_cli/kernels/cuda) apply the same rules from here, so that
build time and run time agree and a rule's message stands once. A family with structured kernels keeps its
meta rules here too (structured.py: what a meta rule decides, ``Meta``; activation.py: the activation table's;
loss_classification.py: softmax_with_cross_entropy's).
Imports only pe_cli.base (and numpy)."""
