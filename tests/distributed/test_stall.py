"""The stall inspector's report (pe_cli/distributed/stall.py): who waits where, and who never came. A real
stalled rank under mpiexec is in tests/transpiler/test_distributed.py."""

from pe_cli.distributed.stall import stalled


def test_the_stall_report_names_who_waits_where():
    positions = {
        0: (7, "all_reduce of w@GRAD", 100.0),
        1: (6, "all_reduce of b@GRAD", 90.0),
        2: (7, "all_reduce of w@GRAD", 101.0),
    }
    assert stalled(positions, 104.0, 5) is None  # not long enough yet
    report = stalled(positions, 106.0, 5)
    assert report.startswith(
        "stall: rank(s) 0, 2 have waited 6 s in collective #7 (all_reduce of w@GRAD), "
        "which rank(s) 1 never reached: rank 1 last entered collective #6 (all_reduce of b@GRAD)"
    )
    assert stalled({0: (3, "a", 0.0), 1: (3, "a", 0.0)}, 1000.0, 5) is None  # everyone is there
