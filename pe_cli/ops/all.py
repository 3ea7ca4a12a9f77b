"""Imports every op module so each registers its ops. Add a new op module here."""
from . import activation, elementwise, loss_classification, math, optimizer, tensor  # noqa: F401
from . import clip, fused  # noqa: F401
from . import indexing, metric, rnn, sequence, sequence_conv, sequence_rows, shape_ops  # noqa: F401
from . import sequence_image, sequence_shape, sequence_window  # noqa: F401
from . import distributed, fused, similarity  # noqa: F401
from . import control_flow, dynamic_rnn  # noqa: F401
from . import beam_search, lod_rank  # noqa: F401
from . import crf, seq_metric  # noqa: F401
from . import gru, lstm_unit, lstmp  # noqa: F401
from . import selected_rows  # noqa: F401
from . import fused_optimizer  # noqa: F401
from . import ctc, image, indexing_extra, padding, position  # noqa: F401
from . import cvm, hashing, instag, tensor_extra  # noqa: F401
from . import py_func, tensor_v2  # noqa: F401
from . import convolution, dropout, embedding, normalization, pooling  # noqa: F401
from . import loss_ranking, loss_regression, loss_sampled  # noqa: F401
from . import detection_box  # noqa: F401
from . import detection_nms  # noqa: F401
from . import detection_more  # noqa: F401
from . import detection_deform_roi, detection_mask, detection_persp, detection_proposals, detection_roi  # noqa: F401
from . import detection_retinanet, detection_target, detection_yolo  # noqa: F401
