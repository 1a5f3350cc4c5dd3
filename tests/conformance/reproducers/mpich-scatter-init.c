#include <mpi.h>
#include <stdio.h>
/* MPI_Scatter_init from root 0, started three times: prints each start. */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, n, send[64], recv[7];
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Request req;
  MPI_Scatter_init(send, 7, MPI_INT, recv, 7, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < 7 * n; ++i) send[i] = 1000 * rep + i;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    printf("rank %d: start %d done, recv[0] = %d (expected %d)\n", me, rep, recv[0], 1000 * rep + 7 * me);
    fflush(stdout);
  }
  MPI_Request_free(&req);
  MPI_Finalize();
  return 0;
}
