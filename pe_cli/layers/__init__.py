"""Layer builders with Fluid's signatures. Every builder appends ops through the op registry.
Importing the package gives Variable its operators (``a + b``; see math_op_patch)."""

from .activation import *  # noqa: F401,F403
from .io import data, load  # noqa: F401
from .loss_classification import *  # noqa: F401,F403
from .loss_regression import *  # noqa: F401,F403
from .loss_ranking import *  # noqa: F401,F403
from .loss_sampled import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .matrix import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .learning_rate_scheduler import *  # noqa: F401,F403
from .lr_schedule import autoincreased_step_counter, switch_schedule  # noqa: F401 -- Fluid's layers.nn has

#     the counter; switch_schedule is pe's (a model config's piecewise schedule)
from .metric import *  # noqa: F401,F403
from .sequence_metric import *  # noqa: F401,F403
from .sequence import *  # noqa: F401,F403
from .sequence_conv import *  # noqa: F401,F403
from .sequence_rows import *  # noqa: F401,F403
from .sequence_shape import *  # noqa: F401,F403
from .sequence_window import *  # noqa: F401,F403
from .sequence_image import *  # noqa: F401,F403
from .lstm import *  # noqa: F401,F403
from .gru import *  # noqa: F401,F403
from .lstmp import *  # noqa: F401,F403
from . import rnn  # noqa: F401 -- Fluid's layers.rnn submodule (a face); rnn_api's star import below rebinds the name
from .random import *  # noqa: F401,F403
from .similarity import *  # noqa: F401,F403
from .logic import *  # noqa: F401,F403
from .control_flow import *  # noqa: F401,F403
from .static_rnn import *  # noqa: F401,F403
from .ifelse import *  # noqa: F401,F403
from .dynamic_rnn import *  # noqa: F401,F403
from .rnn_blocks import *  # noqa: F401,F403
from .lod_rank import *  # noqa: F401,F403
from .beam_search import *  # noqa: F401,F403
from .crf import *  # noqa: F401,F403
from .rnn_cells import *  # noqa: F401,F403
from .rnn_api import *  # noqa: F401,F403 -- after .rnn: Fluid's layers.rnn is the function, not the submodule
from .lstm_cudnn import *  # noqa: F401,F403
from .decode import *  # noqa: F401,F403
from .decode_helpers import *  # noqa: F401,F403
from .while_loop import *  # noqa: F401,F403
from .cvm import *  # noqa: F401,F403
from .hashing import *  # noqa: F401,F403
from .instag import *  # noqa: F401,F403
from .position import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .ctc import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .convolution import *  # noqa: F401,F403
from .convolution3d import *  # noqa: F401,F403
from .image import *  # noqa: F401,F403
from .video import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .selected_rows import *  # noqa: F401,F403
from .py_func import *  # noqa: F401,F403
from .printing import *  # noqa: F401,F403
from .readers import *  # noqa: F401,F403
from .distributions import *  # noqa: F401,F403
from .detection_box import *  # noqa: F401,F403
from .detection_head import *  # noqa: F401,F403
from .detection_nms import *  # noqa: F401,F403
from .detection_match import *  # noqa: F401,F403
from .detection_target import *  # noqa: F401,F403
from .detection_loss import *  # noqa: F401,F403
from .detection_roi import *  # noqa: F401,F403
from .detection_yolo import *  # noqa: F401,F403
from .detection_proposals import *  # noqa: F401,F403
from . import detection, loss, metric_op, nn, ops, sequence_lod, tensor  # noqa: F401,E402 -- Fluid's submodule names (fluid_module.py)
from .math_op_patch import monkey_patch_variable

monkey_patch_variable()

# Last: the names of Fluid's layers index pe lacks, as stand-ins that say so (only where undefined).
from . import not_yet as _not_yet  # noqa: E402

_not_yet.fill(globals())
