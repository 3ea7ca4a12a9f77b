"""``paddle.fluid.incubate.fleet.utils.fleet_util``: FleetUtil, the helpers of Fluid's CTR jobs over a
fleet (``FleetUtil(mode)``: 'pslib', the default, or 'transpiler', pe's parameter-server fleet).

Worked out here: logs written by worker 0 only (``rank0_print``, ``rank0_info``, ``rank0_error``),
``set_zero``, the global AUC of the workers' ``auc`` buckets (``get_global_auc``,
``print_global_auc``) and the CTR metrics (``get_global_metrics``: AUC, bucket error, MAE, RMSE,
actual and predicted CTR, COPC, mean Q value, instances), ``get_online_pass_interval``, and the
program helpers (``program_type_trans``, ``draw_from_program(_file)``, ``check_two_programs``,
``check_vars_and_dump``, ``parse_program_proto``). (Fluid 1.8.5's own get_global_auc,
get_global_metrics and get_online_pass_interval fail on Python 3: ``xrange``, float ranges.)
Model saving and loading go to the fleet's own methods, as Fluid's do (pslib's say that pe has no
pslib); the donefile writers and HDFS uploads need an HDFS cluster and say so."""

import collections  # noqa: F401 -- Fluid's module has these names
import json  # noqa: F401
import logging
import math
import os
import sys  # noqa: F401
import time  # noqa: F401

import numpy as np

from . import hdfs, utils  # noqa: F401
from .hdfs import HDFSClient  # noqa: F401
from .... import core  # noqa: F401
from ....executor import global_scope
from ....log_helper import get_logger
from ....unsupported import HDFS, FluidUnsupported
from .....base.places import CPUPlace
from ..parameter_server.distribute_transpiler import fleet as fleet_transpiler
from ..parameter_server.pslib import fleet as fleet_pslib

__all__ = ["FleetUtil"]
_logger = get_logger(__name__, logging.INFO, fmt="%(asctime)s-%(levelname)s: %(message)s")
_HDFS_METHODS = (
    "write_model_donefile",
    "write_xbox_donefile",
    "write_cache_donefile",
    "save_paddle_inference_model",
    "save_paddle_params",
    "get_last_save_xbox_base",
    "get_last_save_xbox",
    "get_last_save_model",
)


def _global(fleet, array):
    """``array`` summed over the workers (the fleet's all-reduce), in its shape."""
    flat = np.asarray(array).reshape(-1)
    total = np.copy(flat) * 0
    fleet._role_maker._all_reduce(flat, total)
    return total.reshape(np.shape(array))


def _auc(global_pos, global_neg):
    """(AUC, instances) of the summed positive and negative threshold buckets (row 0)."""
    area = pos = neg = 0.0
    total = 0
    for index in reversed(range(len(global_pos[0]))):
        new_pos, new_neg = pos + global_pos[0][index], neg + global_neg[0][index]
        total += global_pos[0][index] + global_neg[0][index]
        area += (new_neg - neg) * (pos + new_pos) / 2
        pos, neg = new_pos, new_neg
    return (0.5 if pos * neg == 0 or total == 0 else area / (pos * neg)), total


def _bucket_error(global_pos, global_neg):
    """Fluid's bucket error: the click-weighted relative error of the CTR over buckets merged until
    their estimate is within 5 %."""
    num_bucket = len(global_pos[0])
    last_ctr, impressions, ctr_sum, clicks, error_sum, error_count = -1.0, 0.0, 0.0, 0.0, 0.0, 0.0
    for i in range(num_bucket):
        show = global_pos[0][i] + global_neg[0][i]
        ctr = float(i) / num_bucket
        if abs(ctr - last_ctr) > 0.01:
            last_ctr, impressions, ctr_sum, clicks = ctr, 0.0, 0.0, 0.0
        impressions += show
        ctr_sum += ctr * show
        clicks += global_pos[0][i]
        if impressions == 0 or ctr_sum == 0:
            continue
        adjust_ctr = ctr_sum / impressions
        if math.sqrt((1 - adjust_ctr) / (adjust_ctr * impressions)) < 0.05:
            error_sum += abs(clicks / impressions / adjust_ctr - 1) * impressions
            error_count += impressions
            last_ctr = -1
    return error_sum / error_count if error_count > 0 else 0.0


fleet = fleet_pslib  # FleetUtil(mode) chooses, as Fluid's module global
_METRIC_NAMES = ("sqrerr_name", "abserr_name", "prob_name", "q_name", "pos_ins_num_name", "total_ins_num_name")


class FleetUtil:
    def __init__(self, mode="pslib"):
        global fleet
        if mode == "pslib":
            fleet = fleet_pslib
        elif mode == "transpiler":
            fleet = fleet_transpiler
        else:
            raise ValueError('Please choose one mode from ["pslib", "transpiler"]')

    def rank0_print(self, s):
        """Prints ``s`` (flushed) on worker 0 only."""
        if fleet.worker_index() == 0:
            print(s)
            sys.stdout.flush()

    def rank0_info(self, s):
        if fleet.worker_index() == 0:
            _logger.info(s)

    def rank0_error(self, s):
        if fleet.worker_index() == 0:
            _logger.error(s)

    def set_zero(self, var_name, scope=None, place=None, param_type="int64"):
        """Sets the tensor of ``var_name`` in ``scope`` to zeros of its shape (``param_type``)."""
        scope = scope or global_scope()
        param = scope.var(var_name).get_tensor()
        param.set(np.zeros(np.array(param).shape).astype(param_type), place or CPUPlace())

    def print_global_auc(self, scope=None, stat_pos="_generated_var_2", stat_neg="_generated_var_3", print_prefix=""):
        auc_value = self.get_global_auc(scope or global_scope(), stat_pos, stat_neg)
        self.rank0_print(print_prefix + " global auc = %s" % auc_value)

    def get_global_auc(self, scope=None, stat_pos="_generated_var_2", stat_neg="_generated_var_3"):
        """The AUC of every worker's ``auc`` buckets together (None when the buckets are not there)."""
        scope = scope or global_scope()
        if scope.find_var(stat_pos) is None or scope.find_var(stat_neg) is None:
            self.rank0_print("not found auc bucket")
            return None
        fleet._role_maker._barrier_worker()
        pos = _global(fleet, np.array(scope.find_var(stat_pos).get_tensor()))
        neg = _global(fleet, np.array(scope.find_var(stat_neg).get_tensor()))
        fleet._role_maker._barrier_worker()
        return _auc(pos, neg)[0]

    def _missing_metric(self, scope, names):
        if scope.find_var(names["stat_pos_name"]) is None or scope.find_var(names["stat_neg_name"]) is None:
            return "not found auc bucket"
        for key in _METRIC_NAMES:
            if scope.find_var(names[key]) is None:
                return f"not found {key}={names[key]}"
        return None

    def get_global_metrics(
        self,
        scope=None,
        stat_pos_name="_generated_var_2",
        stat_neg_name="_generated_var_3",
        sqrerr_name="sqrerr",
        abserr_name="abserr",
        prob_name="prob",
        q_name="q",
        pos_ins_num_name="pos",
        total_ins_num_name="total",
    ):
        """[auc, bucket_error, mae, rmse, actual_ctr, predicted_ctr, copc, mean_predict_qvalue,
        total_ins_num] over every worker (nine Nones when a variable is missing)."""
        scope, names = scope or global_scope(), dict(locals())
        missing = self._missing_metric(scope, names)
        if missing:
            self.rank0_print(missing)
            return [None] * 9
        fleet._role_maker._barrier_worker()
        auc = self.get_global_auc(scope, stat_pos_name, stat_neg_name)
        pos = _global(fleet, np.array(scope.find_var(stat_pos_name).get_tensor()))
        neg = _global(fleet, np.array(scope.find_var(stat_neg_name).get_tensor()))
        sqrerr, abserr, prob, q, pos_num, total = (
            _global(fleet, np.array(scope.find_var(names[k]).get_tensor()))[0] for k in _METRIC_NAMES
        )
        actual_ctr, predicted_ctr = pos_num / total, prob / total
        copc = actual_ctr / predicted_ctr if abs(predicted_ctr > 1e-6) else 0.0
        return [
            auc,
            _bucket_error(pos, neg),
            abserr / total,
            math.sqrt(sqrerr / total),
            actual_ctr,
            predicted_ctr,
            copc,
            q / total,
            int(total),
        ]

    def print_global_metrics(
        self,
        scope=None,
        stat_pos_name="_generated_var_2",
        stat_neg_name="_generated_var_3",
        sqrerr_name="sqrerr",
        abserr_name="abserr",
        prob_name="prob",
        q_name="q",
        pos_ins_num_name="pos",
        total_ins_num_name="total",
        print_prefix="",
    ):
        scope, names = scope or global_scope(), dict(locals())
        missing = self._missing_metric(scope, names)
        if missing:
            self.rank0_print(missing)
            return
        values = self.get_global_metrics(
            scope,
            stat_pos_name,
            stat_neg_name,
            sqrerr_name,
            abserr_name,
            prob_name,
            q_name,
            pos_ins_num_name,
            total_ins_num_name,
        )
        self.rank0_print(
            "%s global AUC=%.6f BUCKET_ERROR=%.6f MAE=%.6f RMSE=%.6f Actural_CTR=%.6f "
            "Predicted_CTR=%.6f COPC=%.6f MEAN Q_VALUE=%.6f Ins number=%s" % (print_prefix, *values)
        )

    def get_online_pass_interval(self, days, hours, split_interval, split_per_pass, is_data_hourly_placed):
        """The data splits of each pass of a day: ``hours`` ("0 1 ... 23", or a shell range such as
        "{0..23}") limit the day, each ``split_interval`` minutes is a split (``HH`` or ``HHMM``), and
        ``split_per_pass`` splits make a pass (Fluid's, on Python 2, fails unless the hours cover the
        day; pe gives the passes the hours hold)."""
        hours = os.popen("echo -n " + hours).read().split(" ")
        split_interval, split_per_pass = int(split_interval), int(split_per_pass)
        splits_per_day = 24 * 60 // split_interval
        first, last = int(hours[0]), int(hours[-1])
        paths = []
        for start in range(0, splits_per_day * split_interval, split_interval):
            h, m = start // 60, start % 60
            if first <= h <= last:
                paths.append("%02d" % h if is_data_hourly_placed else "%02d%02d" % (h, m))
        return [paths[i * split_per_pass : (i + 1) * split_per_pass] for i in range(len(paths) // split_per_pass)]

    # -- the fleet's models: its own methods, as Fluid's call them --------------------------------------
    def load_fleet_model_one_table(self, table_id, path):
        fleet.load_one_table(table_id, path)

    def load_fleet_model(self, path, mode=0):
        fleet.init_server(path, mode=mode)

    def save_fleet_model(self, path, mode=0):
        fleet.save_persistables(None, path, mode=mode)

    def load_model(self, output_path, day, pass_id):
        path = f"{output_path}/{day}/{pass_id}/"
        self.rank0_error(f"going to load_model {path}")
        self.load_fleet_model(path)
        self.rank0_error("load_model done")

    def save_model(self, output_path, day, pass_id):
        path = f"{output_path}/{day}/{pass_id}/"
        self.rank0_print(f"going to save_model {path}")
        self.save_fleet_model(path)
        self.rank0_print("save_model done")

    def _save(self, what, path, mode):
        self.rank0_print(f"going to {what} {path}")
        fleet.save_persistables(None, path, mode=mode)
        self.rank0_print(f"{what} done")

    def save_batch_model(self, output_path, day):
        self._save("save_batch_model", f"{output_path}/{day}/0/", 3)

    def save_delta_model(self, output_path, day, pass_id):
        self._save("save_delta_model", f"{output_path}/{day}/delta-{pass_id}/", 1)

    def save_xbox_base_model(self, output_path, day):
        self._save("save_xbox_base_model", f"{output_path}/{day}/base/", 2)

    def save_cache_model(self, output_path, day, pass_id, mode=1, **kwargs):
        path = f"{output_path.rstrip('/')}/{day}/delta-{pass_id}"
        self.rank0_print(f"going to save_cache_model {path}")
        key_num = fleet.save_cache_model(None, path, mode=int(mode), table_id=kwargs.get("table_id", 0))
        self.rank0_print("save_cache_model done")
        return key_num

    def save_cache_base_model(self, output_path, day, **kwargs):
        path = f"{output_path.rstrip('/')}/{day}/base"
        self.rank0_print(f"going to save_cache_base_model {path}")
        key_num = fleet.save_cache_model(None, path, mode=2, table_id=kwargs.get("table_id", 0))
        self.rank0_print("save_cache_base_model done")
        return key_num

    def pull_all_dense_params(self, scope, program):
        """pslib's dense tables pulled into ``scope`` (the pslib fleet's)."""
        fleet._role_maker._barrier_worker()
        if fleet._role_maker.is_first_worker():
            fleet._fleet_ptr.pull_dense(scope, program)
        fleet._role_maker._barrier_worker()

    # -- programs ---------------------------------------------------------------------------------------
    def program_type_trans(self, prog_dir, prog_fn, is_text):
        return utils.program_type_trans(prog_dir, prog_fn, is_text)

    def draw_from_program_file(self, model_filename, is_text, output_dir, output_filename):
        utils.graphviz(utils.load_program(model_filename, is_text).global_block(), output_dir, output_filename)

    def draw_from_program(self, program, output_dir, output_name):
        utils.graphviz(program.global_block(), output_dir, output_name)

    def check_two_programs(self, config):
        """True when the pruned program's persistables match the training program's (config's
        train_prog_path, pruned_prog_path, is_text_*, draw, draw_out_name)."""
        train = utils.load_program(config.train_prog_path, config.is_text_train_program)
        pruned = utils.load_program(config.pruned_prog_path, config.is_text_pruned_program)
        if config.draw:
            self.draw_from_program(pruned, os.path.dirname(config.pruned_prog_path), config.draw_out_name)
        ok = utils.check_pruned_program_vars(train, pruned)
        _logger.info(
            "check_programs succeed." if ok else "check_programs failed. pruned program and train program not match!"
        )
        return ok

    def check_vars_and_dump(self, config):
        _logger.info("start check_vars_and_dump.")
        results = utils.check_saved_vars_try_dump(
            config.dump_model_dir,
            config.dump_program_filename,
            config.is_text_dump_program,
            config.feed_config,
            config.fetch_config,
            config.batch_size,
            config.save_params_filename,
        )
        _logger.info("check_vars_and_dump succeed.")
        return results

    def parse_program_proto(self, prog_path, is_text, output_dir):
        utils.parse_program(utils.load_program(prog_path, is_text), output_dir)


def _needs_hdfs(name):
    def method(self, *args, **kwargs):
        raise FluidUnsupported(f"FleetUtil.{name}", HDFS)

    method.__name__ = name
    method.__doc__ = f"Fluid's {name} writes to an HDFS cluster: " + HDFS + "."
    return method


for _name in _HDFS_METHODS:
    setattr(FleetUtil, _name, _needs_hdfs(_name))
