"""Fluid 1.8's role makers and fleet objects in one process (issue 58, item 2): roles from the
environment Fluid's launchers and pe launch set, Fluid's argument checks, and what the fleets
refuse before anything is distributed."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import FluidUnsupported, PeError
from pe_cli.fluid.incubate.fleet.base import role_maker
from pe_cli.fluid.incubate.fleet.collective import fleet as collective_fleet
from pe_cli.fluid.incubate.fleet.parameter_server.distribute_transpiler import FleetTranspiler, TranspilerOptimizer
from pe_cli.fluid.incubate.fleet.parameter_server.distribute_transpiler.distributed_strategy import StrategyFactory

PSERVERS = "127.0.0.1:36001,127.0.0.2:36001"
ROLE_VARS = (
    "TRAINING_ROLE",
    "PADDLE_TRAINING_ROLE",
    "PADDLE_TRAINER_ID",
    "PADDLE_TRAINERS_NUM",
    "POD_IP",
    "PADDLE_PORT",
    "PADDLE_PSERVERS_IP_PORT_LIST",
    "PADDLE_PSERVER_ENDPOINTS",
    "PADDLE_CURRENT_ENDPOINT",
    "PADDLE_TRAINER_ENDPOINTS",
    "PADDLE_PSERVER_ID",
)


@pytest.fixture
def env(monkeypatch):
    for name in ROLE_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_paddle_cloud_trainer_and_server_from_fluids_environment(env):
    env.setenv("PADDLE_PSERVERS_IP_PORT_LIST", PSERVERS)
    env.setenv("PADDLE_TRAINERS_NUM", "2")
    env.setenv("TRAINING_ROLE", "TRAINER")
    env.setenv("PADDLE_TRAINER_ID", "1")
    trainer = role_maker.PaddleCloudRoleMaker()
    trainer.generate_role()
    assert trainer.is_worker() and not trainer.is_server() and not trainer.is_first_worker()
    assert (trainer.worker_index(), trainer.worker_num(), trainer.server_num()) == (1, 2, 2)
    assert trainer.get_pserver_endpoints() == PSERVERS.split(",")
    env.setenv("TRAINING_ROLE", "PSERVER")
    env.setenv("POD_IP", "127.0.0.2")
    env.setenv("PADDLE_PORT", "36001")
    server = role_maker.PaddleCloudRoleMaker()
    assert server.is_server() and server.server_index() == 1


def test_paddle_cloud_reads_pe_launchs_names_and_names_a_missing_variable(env):
    env.setenv("PADDLE_PSERVER_ENDPOINTS", PSERVERS)  # pe launch's spellings
    env.setenv("PADDLE_TRAINERS_NUM", "2")
    env.setenv("PADDLE_TRAINING_ROLE", "PSERVER")
    env.setenv("PADDLE_CURRENT_ENDPOINT", "127.0.0.1:36001")
    assert role_maker.PaddleCloudRoleMaker().server_index() == 0
    env.setenv("PADDLE_TRAINING_ROLE", "WORKER")
    with pytest.raises(ValueError, match="TRAINER"):
        role_maker.PaddleCloudRoleMaker().generate_role()
    env.delenv("PADDLE_TRAINERS_NUM")
    with pytest.raises(KeyError, match="PADDLE_TRAINERS_NUM"):
        role_maker.PaddleCloudRoleMaker().generate_role()


def test_paddle_cloud_collective(env):
    env.setenv("PADDLE_TRAINER_ID", "1")
    env.setenv("PADDLE_TRAINER_ENDPOINTS", "10.0.0.1:6170,10.0.0.2:6170")
    env.setenv("PADDLE_CURRENT_ENDPOINT", "10.0.0.2:6170")
    role = role_maker.PaddleCloudRoleMaker(is_collective=True)
    assert role.is_worker() and role.worker_num() == 2 and role.worker_index() == 1
    assert role._node_ips == ["10.0.0.1", "10.0.0.2"] and role._node_id == 1


def test_user_defined_role_makers_check_their_arguments():
    ok = role_maker.UserDefinedRoleMaker(
        current_id=1, role=role_maker.Role.SERVER, worker_num=3, server_endpoints=["127.0.0.1:1", "127.0.0.1:2"]
    )
    assert ok.is_server() and ok.server_index() == 1 and ok.worker_num() == 3
    bad = [
        (TypeError, dict(server_endpoints=None), "server_endpoints must be as string list"),
        (ValueError, dict(server_endpoints=[]), "the length of server_endpoints list must be greater than 0"),
        (TypeError, dict(server_endpoints=[3, []]), "every element in server_endpoints list must be as string"),
        (ValueError, dict(server_endpoints=["a:1", "a:1"]), "server_endpoints can't have duplicate elements"),
        (TypeError, dict(current_id="0"), "current_id must be as int"),
        (ValueError, dict(current_id=-1), "current_id must be greater than or equal to 0"),
        (
            ValueError,
            dict(current_id=1, role=role_maker.Role.SERVER),
            r"if role is Role\.SERVER, current_id must be less than or equal to 0",
        ),
        (TypeError, dict(worker_num="1"), "worker_num must be as int"),
        (ValueError, dict(worker_num=0), "worker_num must be greater than 0"),
        (TypeError, dict(role=3), "role must be as Role"),
    ]
    for error, kwargs, message in bad:
        args = dict(current_id=0, role=role_maker.Role.WORKER, worker_num=1, server_endpoints=["127.0.0.1:8080"])
        with pytest.raises(error, match=message):
            role_maker.UserDefinedRoleMaker(**dict(args, **kwargs))
    with pytest.raises(ValueError, match="current_id must be less than or equal to 0"):
        role_maker.UserDefinedCollectiveRoleMaker(current_id=1, worker_endpoints=["127.0.0.1:8080"])
    assert role_maker.UserDefinedCollectiveRoleMaker(0, ["a:1", "b:1"]).worker_num() == 2


def test_fleet_queries_split_files_and_a_lone_workers_barrier():
    fleet = FleetTranspiler()
    with pytest.raises(TypeError, match="role_maker must be an instance of RoleMakerBase"):
        fleet.init("pserver")
    fleet.init(
        role_maker.UserDefinedRoleMaker(
            current_id=1, role=role_maker.Role.WORKER, worker_num=3, server_endpoints=["127.0.0.1:1"]
        )
    )
    assert fleet.is_worker() and fleet.worker_index() == 1 and fleet.server_endpoints(to_string=True) == "127.0.0.1:1"
    assert fleet.split_files([f"f{i}" for i in range(7)]) == ["f3", "f4"]  # 3, 2, 2 files
    with pytest.raises(TypeError, match=r"files should be a list of file need to be read\."):
        fleet.split_files("files")
    with pytest.raises(
        PeError,
        match=r"^UserDefinedRoleMaker: trainer 1 joins roles started on their own only "
        r"under pe: run the script with pe fluid SCRIPT",
    ):
        fleet.barrier_worker()  # worker 1 of 3, started on its own, outside pe fluid
    alone = FleetTranspiler()
    alone.init(role_maker.UserDefinedCollectiveRoleMaker(0, ["127.0.0.1:6170"]))
    alone.barrier_worker()  # one worker: no MPI needed
    out = [0.0, 0.0]
    alone.all_reduce_worker([1.5, 2.0], out)
    assert out == [1.5, 2.0]


def test_pserver_fleet_refuses_before_distributing():
    fleet = FleetTranspiler()
    with pytest.raises(ValueError, match="fleet.init"):
        fleet.distributed_optimizer(fluid.optimizer.SGD(0.1))
    with pytest.raises(TypeError, match="optimizer must be an instance of Optimizer"):
        TranspilerOptimizer("Adam", None)
    with pytest.raises(
        TypeError, match="In TRANSPILER mode, strategy must be an instance of DistributeTranspilerConfig, SyncStrategy,"
    ):
        TranspilerOptimizer(fluid.optimizer.Adam(0.001), "strategy")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = fluid.layers.mean(fluid.layers.fc(fluid.layers.data("x", [2]), 1))
        with pytest.raises(TypeError, match="DistributedTranspiler's minimize can not accept loss with list"):
            TranspilerOptimizer(fluid.optimizer.SGD(0.1)).minimize(loss=[])
        geo = TranspilerOptimizer(fluid.optimizer.SGD(0.1), StrategyFactory.create_geo_strategy(5))
        with pytest.raises(FluidUnsupported, match="geo"):
            geo.minimize(loss)
    assert not any(op.type.endswith("_grad") for op in main.global_block().ops)  # refused before backward
    with pytest.raises(TypeError, match=r"in fleet\.save_persistables\(\) function, executor must be as Executor type"):
        collective_fleet.save_persistables(executor="executor", dirname="/tmp/never")


def test_distribute_transpiler_config_checks_sync_and_runtime_split():
    config = fluid.DistributeTranspilerConfig()
    with pytest.raises(TypeError, match=r"DistributeTranspilerConfig\.sync_mode must be True or False, got None"):
        config.sync_mode = None
    with pytest.raises(
        ValueError,
        match="DistributeTranspilerConfig: runtime_split_send_recv can be True only when sync_mode is False; set sync_mode",
    ):
        config.runtime_split_send_recv = True  # while sync_mode is True
    config.sync_mode = False
    config.runtime_split_send_recv = True
    with pytest.raises(
        ValueError,
        match="DistributeTranspilerConfig: sync_mode cannot be True while runtime_split_send_recv is True; set",
    ):
        config.sync_mode = True
    assert StrategyFactory.create_sync_strategy().get_program_config().runtime_split_send_recv


def test_init_server_from_a_model_dir_cuts_its_blocks(tmp_path):
    fleet = FleetTranspiler()
    fleet.init(
        role_maker.UserDefinedRoleMaker(
            current_id=1, role=role_maker.Role.SERVER, worker_num=2, server_endpoints=["127.0.0.1:1", "127.0.0.1:2"]
        )
    )
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = fluid.layers.mean(fluid.layers.fc(fluid.layers.data("x", [3]), 8, name="fc"))
        config = fluid.DistributeTranspilerConfig()
        config.min_block_size = 4  # fc.w_0 [3, 8] is cut in two blocks of rows
        fleet.distributed_optimizer(fluid.optimizer.SGD(0.1), config).minimize(loss)
    saved = {"fc.w_0": np.arange(24, dtype="float32").reshape(3, 8), "fc.b_0": np.arange(8, dtype="float32")}
    with fluid.scope_guard(fluid.Scope()):
        for name, value in saved.items():
            fluid.global_scope().set_array(name, value)
        fluid.io.save_vars(
            fluid.Executor(fluid.CPUPlace()),
            str(tmp_path),
            fleet._origin_main_program,
            vars=[fleet._origin_main_program.global_block().var(n) for n in saved],
        )
    with fluid.scope_guard(fluid.Scope()):
        fleet.init_server(str(tmp_path))
        mine = {
            new: (name, vb)
            for new, (name, vb) in fleet.main_program._pserver_origin.items()
            if name in saved and fluid.global_scope().find_var(new) is not None
        }
        assert any(vb is not None and vb.count > 1 for _, vb in mine.values())  # a cut block among them
        for new, (name, vb) in mine.items():
            rows = saved[name] if vb is None or vb.count == 1 else saved[name][vb.row0 : vb.row0 + vb.rows]
            np.testing.assert_array_equal(fluid.global_scope().get_array(new), rows, err_msg=new)


def test_a_role_given_in_code_that_differs_from_the_joined_environment_is_a_one_line_error(monkeypatch):
    from pe_cli.distributed import rendezvous

    joined = rendezvous.cluster_from_env(
        dict(
            PADDLE_TRAINING_ROLE="TRAINER",
            PADDLE_TRAINER_ID="1",
            PADDLE_TRAINERS_NUM="2",
            PADDLE_PSERVER_ENDPOINTS="127.0.0.1:6170",
        )
    )
    monkeypatch.setitem(rendezvous._JOINED, "comm", None)  # as pe fluid left it after joining
    monkeypatch.setitem(rendezvous._JOINED, "cluster", joined)
    same = FleetTranspiler()
    same.init(
        role_maker.UserDefinedRoleMaker(
            current_id=1, role=role_maker.Role.WORKER, worker_num=2, server_endpoints=["127.0.0.1:6170"]
        )
    )
    with pytest.raises(
        PeError,
        match=r"^UserDefinedRoleMaker: this process is trainer 0 of 3 processes, but "
        r"Fluid's environment \(PADDLE_\*\) made it trainer 1 of 3: give the role",
    ):
        FleetTranspiler().init(
            role_maker.UserDefinedRoleMaker(
                current_id=0, role=role_maker.Role.WORKER, worker_num=2, server_endpoints=["127.0.0.1:6170"]
            )
        )
