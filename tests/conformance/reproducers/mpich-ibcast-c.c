#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* MPI_Ibcast_c of 2 GiB + 64 bytes (a count past 2^31) from rank 0; with
   errors returned, prints what MPI_Ibcast_c and MPI_Wait return and the
   first wrong byte. Run on 2 ranks (2 x 2 GiB of memory). */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const MPI_Count count = ((MPI_Count)1 << 31) + 64;
  unsigned char *buf = malloc((size_t)count);
  for (MPI_Count i = 0; i < count; ++i) buf[i] = me == 0 ? (unsigned char)(i * 131) : 0;
  MPI_Request req;
  int rc = MPI_Ibcast_c(buf, count, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
  int wrc = rc == MPI_SUCCESS ? MPI_Wait(&req, MPI_STATUS_IGNORE) : -1;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (wrc > 0) MPI_Error_string(wrc, text, &len);
  long long bad = -1;
  for (MPI_Count i = 0; i < count && bad < 0; ++i)
    if (buf[i] != (unsigned char)(i * 131)) bad = (long long)i;
  printf("rank %d: MPI_Ibcast_c %d, MPI_Wait %d %.*s, first wrong byte %lld\n", me, rc, wrc, len, text, bad);
  free(buf);
  MPI_Finalize();
  return bad >= 0;
}
