"""What runs between processes: the floor above base, below the kernels. It knows no op, kernel,
program or executor; it moves host arrays (and SelectedRows) between processes over MPI and keeps
those processes together:

- rank_guard: each MPI rank runs under a small guard, so that one rank's failure, whatever ends it,
  stops every rank with one line naming it (``python -m pe_cli.distributed.rank_guard MODULE``);
- processes: the communicator of every process of a run, and the collectives between trainer
  processes (sums in rank order, broadcasts; mpi4py is loaded here, on first use);
- stall: the stall inspector of those collectives (a rank waiting where the others never arrive);
- pserver_link: the messages of parameter-server mode, point to point;
- rendezvous: roles started on their own (no shared mpiexec) joining one MPI communicator at their
  endpoints (cluster_env: where Fluid's environment puts each; admission: the root admitting the
  others), with peer_watch: their liveness (a lost or failing role stops every role).

It imports only pe_cli.base. The kernels of the parameter-server ops (kernels/<kind>/distributed.py),
the executors, run/ and the Fluid face (fleet) import it. Import the modules themselves; this package
imports nothing, so that a rank guard starts in a fraction of a second."""
