"""CUDA kernels of the loss_margin family: their CPU twins on the host (kernels/cuda/_host.py: one row-wise
softmax per sample, and class_center_sample, whose output's size the labels decide; correct on a GPU place,
not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("margin_cross_entropy", "margin_cross_entropy_grad", "class_center_sample")
