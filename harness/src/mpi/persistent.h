// Persistent collectives: MPI-4's MPI_<Coll>_init, or Open MPI 4's
// MPIX_<Coll>_init (mpi-ext.h, the pcollreq extension), with the same
// arguments: the nonblocking call's, then an MPI_Info, then the request.
// NBCGUARD_INIT(Bcast) names the library's function; undefined when the
// library has neither (PersistentSource() is then empty).
#pragma once

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <string>

#if MPI_VERSION >= 4
#define NBCGUARD_INIT(Name) MPI_##Name##_init
#define NBCGUARD_PERSISTENT "MPI-4"
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define NBCGUARD_INIT(Name) MPIX_##Name##_init
#define NBCGUARD_PERSISTENT "Open MPI's MPIX_ extension"
#endif

// The body of an Init(MPI_Request* q): `return MPI_<Name>_init(args...,
// MPI_INFO_NULL, q)`, or MPI_ERR_OTHER where the library has none.
#ifdef NBCGUARD_INIT
#define NBCGUARD_INIT_CALL(Name, ...) return NBCGUARD_INIT(Name)(__VA_ARGS__, MPI_INFO_NULL, q)
#else
#define NBCGUARD_INIT_CALL(Name, ...) \
  (void)q;                            \
  return MPI_ERR_OTHER
#endif

namespace nbcguard {

// Where the persistent collectives come from ("MPI-4", "Open MPI's MPIX_
// extension"), or empty when this MPI library declares none.
inline std::string PersistentSource() {
#ifdef NBCGUARD_PERSISTENT
  return NBCGUARD_PERSISTENT;
#else
  return "";
#endif
}

// Why a persistent collective cannot run here (PersistentSource() empty).
inline const char* NoPersistentReason() {
  return "this MPI library declares no persistent collectives (neither MPI-4's MPI_Bcast_init ... nor "
         "Open MPI's MPIX_ extension in mpi-ext.h)";
}

}  // namespace nbcguard
