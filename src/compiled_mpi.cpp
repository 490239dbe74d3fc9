// loopsched::compiled, part 3: the entry points over MPI.
#include <loopsched/impl/compiled_mpi.ipp>
