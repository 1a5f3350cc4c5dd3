#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/* MPI_Allgather_init started three times with new data each time; every rank
   checks the gathered blocks. */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, n, count = 7;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int *send = malloc(count * sizeof(int)), *recv = malloc(n * count * sizeof(int));
  MPI_Request req;
  MPI_Allgather_init(send, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  int bad = 0;
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < count; ++i) send[i] = 1000 * rep + 100 * me + i;
    for (int i = 0; i < n * count; ++i) recv[i] = -1;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (1)
      for (int i = 0; i < n * count; ++i)
        if (recv[i] != 1000 * rep + 100 * (i / count) + i % count) {
          printf("rep %d: recv[%d] = %d, expected %d\n", rep, i, recv[i], 1000 * rep + 100 * (i / count) + i % count);
          bad = 1;
          break;
        }
  }
  MPI_Request_free(&req);
  if (me == 0) printf(bad ? "FAILED\n" : "ok\n");
  free(send); free(recv);
  MPI_Finalize();
  return bad;
}
