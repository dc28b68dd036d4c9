#!/bin/sh
# The same fleet with a pdcheck built with MPI (pdcheck-mpi.so beside the
# binary, or cmake --install BUILD --component mpi): rank and size come from
# MPI, rank 0 broadcasts its coordinator's address through MPI, so no
# --coordinator is given, and rank 0 gathers every rank's own account of its
# end (a rank that could not join says why).
#   HOSTS=node0,node1,node2,node3 sh examples/fleet/mpirun-mpi.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec mpirun --host "${HOSTS:-localhost:4}" -np "${NP:-4}" ${MPIRUN_FLAGS:-} \
  pdcheck probe fleet "$here/plan.yaml" --mpi \
  --transport "${TRANSPORT:-auto}" --output junit=fleet-junit.xml --output svg=fleet.svg
