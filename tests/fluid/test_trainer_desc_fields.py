"""TrainerDesc's proto fields as Fluid's fleet code sets them (recorded; repeated fields append)."""

from pe_cli import fluid


def test_dump_and_mpi_fields():
    desc = fluid.trainer_desc.MultiTrainer()
    assert desc.proto_desc.mpi_rank == -1 and desc.proto_desc.dump_file_num == 16
    desc._set_dump_fields(["a", "b"])
    desc._set_dump_fields(["c"])
    desc._set_mpi_rank(1)
    desc._set_dump_fields_path("path")
    assert desc.proto_desc.dump_fields == ["a", "b", "c"]
    assert (desc.proto_desc.mpi_rank, desc.proto_desc.dump_fields_path) == (1, "path")
    assert fluid.trainer_desc.TrainerDesc().proto_desc.dump_fields == []  # not shared between descs
