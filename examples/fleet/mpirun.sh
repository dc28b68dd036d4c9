#!/bin/sh
# Every prefill host against every decode host, under Open MPI: one rank per
# host (--map-by ppr:1:node), rank 0's host gathers the fleet. Each rank reads
# its rank and the fleet's size from OMPI_COMM_WORLD_RANK / _SIZE.
#   HOSTS=node0,node1,node2,node3 COORDINATOR=node0:29650 sh examples/fleet/mpirun.sh
# Rank 0 prints the matrix and writes the JUnit file and the heat map; mpirun
# exits non-zero unless every pair verified.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec mpirun --host "${HOSTS:-localhost:4}" -np "${NP:-4}" ${MPIRUN_FLAGS:-} \
  pdcheck probe fleet "$here/plan.yaml" --coordinator "${COORDINATOR:-127.0.0.1:29650}" \
  --transport "${TRANSPORT:-auto}" --output junit=fleet-junit.xml --output svg=fleet.svg
