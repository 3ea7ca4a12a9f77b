"""CUDA kernels of the message-passing ops (graph_send_recv, graph_send_ue_recv, graph_send_uv and their
gradients): their CPU twins on the host (kernels/cuda/_host.py; index bookkeeping, Out's rows the values'
where the Out_size tensor gives them; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "graph_send_recv",
    "graph_send_recv_grad",
    "graph_send_ue_recv",
    "graph_send_ue_recv_grad",
    "graph_send_uv",
    "graph_send_uv_grad",
)
