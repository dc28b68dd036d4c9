#ifndef PDCHECK_PROBE_MPI_MODULE_ABI_H
#define PDCHECK_PROBE_MPI_MODULE_ABI_H

/* The MPI module's entry points: the only interface between pdcheck and
 * pdcheck-mpi.so (src/modules/mpi_module.cpp), which is built when an MPI
 * implementation is found and loaded with dlopen only by `probe fleet --mpi`.
 * pdcheck itself never links libmpi: no other command pays for loading it,
 * and a binary built with MPI runs on a host without it.
 *
 * Plain C types only, so that the module and pdcheck need not share a C++
 * runtime or an MPI header. Every call that waits takes a deadline in seconds
 * and returns instead of blocking past it (MPI's own calls have none: the
 * module starts non-blocking ones and tests them). A call returns 0, or -1
 * with a one-line reason in `error` (NUL-terminated, at most error_size bytes). */

#ifdef __cplusplus
extern "C" {
#endif

#define PDCHECK_MPI_ABI_VERSION 1
#define PDCHECK_MPI_ENTRY "pdcheck_mpi_entry"

struct pdcheck_mpi_module
{
  int abi_version; /* PDCHECK_MPI_ABI_VERSION */
  const char* implementation; /* "Open MPI v4.1.4, ..." (MPI_Get_library_version, first line) */

  /* MPI_Init_thread (MPI_THREAD_SERIALIZED); this process's rank and the size
   * of MPI_COMM_WORLD, and its rank among the ranks on its host. MPI_Init
   * waits for every rank of the job to start: it runs on a thread of its own,
   * left behind when `seconds` pass (the process then goes on without MPI). */
  int (*init)(double seconds, int* rank, int* size, int* local_rank, char* error, int error_size);

  /* Rank 0's text (at most capacity - 1 bytes, NUL-terminated) to every rank:
   * on rank 0 `text` is read, elsewhere written. */
  int (*broadcast)(char* text, int capacity, double seconds, char* error, int error_size);

  /* Every rank's text to rank 0. On rank 0, `texts` holds size slots of
   * `capacity` bytes each, filled with each rank's NUL-terminated text (its
   * own included) or left empty ("") for a rank not heard from by the
   * deadline. Elsewhere `texts` is unused. */
  int (*gather)(const char* mine, char* texts, int capacity, double seconds, char* error, int error_size);

  /* MPI_Finalize, on a thread of its own up to `seconds`; a no-op unless init
   * succeeded and every call since completed (a rank that gave up on one
   * leaves MPI as it is: finalizing would wait for the ranks it gave up on). */
  int (*finalize)(double seconds, char* error, int error_size);
};

/* The module's one exported symbol (PDCHECK_MPI_ENTRY). */
const struct pdcheck_mpi_module* pdcheck_mpi_entry(void);

#ifdef __cplusplus
}
#endif

#endif
