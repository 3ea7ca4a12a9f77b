"""CUDA kernels of the loss_margin family: their CPU twins on the host (kernels/cuda/_host.py: one row-wise
softmax per sample, and class_center_sample, whose output's size the labels decide; correct on a GPU place,
not fast)."""

from ..cpu import loss_margin as _cpu
from ._host import on_host

margin_cross_entropy = on_host(_cpu.margin_cross_entropy)
margin_cross_entropy_grad = on_host(_cpu.margin_cross_entropy_grad)
class_center_sample = on_host(_cpu.class_center_sample)
