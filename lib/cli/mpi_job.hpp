#pragma once
// attnflow under mpirun: every rank runs the same command; the loops over instances are shared
// out by rank 0 as ranks ask for work (run/instance_fanout.hpp), and only rank 0 writes files and
// talks. A program not launched by mpirun (or srun) never initialises MPI.
#include "attnflow/run/instance_fanout.hpp"

#include <memory>

namespace attnflow::cli {

/// True when this process was started by an MPI launcher as one rank of several.
bool launched_by_mpi();

/// On the ranks other than 0 of an MPI launch, sends stdout and stderr to /dev/null: one progress
/// line, one table, one error line for the whole job. (A rank that dies is reported by mpirun.)
void silence_other_ranks();

/// Joins the MPI job this process was launched in (nullptr when it was not, or is its only
/// rank). Exit 2 with one line when it was launched by mpirun and built without Open MPI.
/// The fanout ends the job (MPI_Finalize) when it is destroyed.
std::unique_ptr<InstanceFanout> join_mpi_job();

/// False on the ranks other than rank 0: they compute and keep quiet.
bool this_process_speaks();

}  // namespace attnflow::cli
