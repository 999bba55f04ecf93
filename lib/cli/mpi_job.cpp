#include "cli/mpi_job.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/io/wire.hpp"
#include "attnflow/run/instance_monitor.hpp"

#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

#if ATTNFLOW_WITH_MPI
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mpi.h>
#include <mutex>
#include <thread>
#endif

namespace attnflow::cli {

namespace {

bool g_speaks = true;

const char* environment(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

}  // namespace

bool launched_by_mpi() {
  // Open MPI's mpirun says how many ranks it started; srun and other PMIx launchers give a rank.
  if (const char* size = environment("OMPI_COMM_WORLD_SIZE")) return std::atol(size) > 1;
  return environment("PMIX_RANK") || environment("PMI_RANK");
}

bool this_process_speaks() { return g_speaks; }

void silence_other_ranks() {
  if (!launched_by_mpi()) return;
  const char* rank = environment("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = environment("PMIX_RANK");
  if (!rank) rank = environment("PMI_RANK");
  if (!rank || std::atol(rank) == 0) return;
  g_speaks = false;
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) ::dup2(null, STDOUT_FILENO), ::dup2(null, STDERR_FILENO), ::close(null);
}

#if ATTNFLOW_WITH_MPI

namespace {

enum Tag : int { kResult = 1, kRequest = 2, kReply = 3, kRankDone = 4 };

/// What a rank sends rank 0 when an instance ends.
struct ResultMessage {
  std::int64_t index = 0;
  double seconds = 0;  // what computing it took
  bool failed = false;
  InstanceFailure::Kind kind = InstanceFailure::Kind::Other;
  std::string bytes;  // the result's wire form, or the failure's message
};
template <class A> void wire_fields(A& a, ResultMessage& m) { a(m.index, m.seconds, m.failed, m.kind, m.bytes); }

/// What every rank learns when a loop ends: all results, or why there are none.
struct LoopOutcome {
  enum class Status : int { Done = 0, Failed = 1, Cancelled = 2 } status = Status::Done;
  InstanceFailure::Kind kind = InstanceFailure::Kind::Other;
  std::string message;
  std::vector<std::string> results;
};
template <class A> void wire_fields(A& a, LoopOutcome& o) { a(o.status, o.kind, o.message, o.results); }

/// Waiting ranks sleep between polls instead of spinning in MPI's progress loop: on a machine
/// with as many ranks as cores a spinning rank would take the core a computing rank needs.
void nap(int& round) {
  std::this_thread::sleep_for(std::chrono::microseconds(50 << std::min(round, 5)));
  ++round;
}

void wait_for(MPI_Request& request) {
  int done = 0, round = 0;
  for (;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    nap(round);
  }
}

int message_size(const std::string& bytes) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) throw std::runtime_error("an instance's result is over 2 GiB");
  return static_cast<int>(bytes.size());
}

/// How long a rank that failed waits for the others at the end before it ends the job: the same
/// bad input fails every rank within moments of each other.
constexpr int kFailureGraceSeconds = 10;

class MpiFanout final : public InstanceFanout {
 public:
  MpiFanout() {
    // Shared-memory transfers through ptrace (CMA) are refused in containers, and Open MPI warns
    // about it on every message; the copy-in/copy-out path needs no permission.
    ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      input_error("mpirun", "this Open MPI gives no MPI_THREAD_SERIALIZED; attnflow's ranks need it");
    }
  }
  ~MpiFanout() override {
    // Every rank ends here. After a failure on some ranks only (rank 0 could not write a file),
    // the others wait in a loop rank 0 will never reach, and MPI_Finalize would wait for them:
    // a rank that ends by an exception waits a little for the others, then ends the job.
    const bool failing = std::uncaught_exceptions() > 0;
    MPI_Request all_here;
    MPI_Ibarrier(comm_, &all_here);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(kFailureGraceSeconds);
    int done = 0, round = 0;
    for (;;) {
      MPI_Test(&all_here, &done, MPI_STATUS_IGNORE);
      if (done) break;
      if (failing && std::chrono::steady_clock::now() > give_up) MPI_Abort(MPI_COMM_WORLD, 2);
      nap(round);
    }
    MPI_Comm_free(&comm_);
    MPI_Finalize();
  }

  bool coordinator() const override { return rank_ == 0; }
  int processes() const override { return size_; }
  int rank() const { return rank_; }

  std::string shared(const std::string& value) override {
    std::string bytes = rank_ == 0 ? value : std::string();
    broadcast(bytes);
    return bytes;
  }

 protected:
  void distribute(std::vector<std::optional<std::string>>& results, const std::function<std::string(long)>& work,
                  const Record& record, int threads) override {
    if (size_ == 1) return local_.distribute_here(results, work, record, threads);
    LoopOutcome outcome;
    if (rank_ == 0) {
      outcome = coordinate(results, work, record, threads);
      std::string bytes = wire::encode(outcome);
      broadcast(bytes);
    } else {
      compute_for_rank_0(work, threads);
      std::string bytes;
      broadcast(bytes);
      outcome = wire::decode<LoopOutcome>(bytes);
      if (outcome.status == LoopOutcome::Status::Done)
        for (std::size_t i = 0; i < results.size(); ++i) results[i] = std::move(outcome.results[i]);
    }
    if (outcome.status == LoopOutcome::Status::Failed) {
      if (rank_ == 0 && first_failure_.original) first_failure_.rethrow();
      InstanceFailure{outcome.kind, outcome.message, nullptr}.rethrow();
    }
    if (outcome.status == LoopOutcome::Status::Cancelled) throw Cancelled();
  }

 private:
  /// This process's threads, through LocalFanout's loop (a job of one rank).
  struct Local : LocalFanout {
    void distribute_here(std::vector<std::optional<std::string>>& results, const std::function<std::string(long)>& work,
                         const Record& record, int threads) {
      distribute(results, work, record, threads);
    }
  } local_;

  /// Rank 0: hands out the missing instances to its own threads and, from a service thread, to
  /// the other ranks as they ask; takes each result as it arrives (journal, progress).
  LoopOutcome coordinate(std::vector<std::optional<std::string>>& results,
                         const std::function<std::string(long)>& work, const Record& record, int threads) {
    InstanceDispenser dispenser(results, record);
    std::thread service([&] { serve_ranks(dispenser); });
    run_on_threads([&] { return dispenser.next(); }, work,
                   [&](long i, std::string bytes, double seconds) { dispenser.done(i, std::move(bytes), seconds); },
                   [&](long i, InstanceFailure why) { dispenser.failed(i, std::move(why)); }, threads);
    service.join();

    LoopOutcome o;
    first_failure_ = {};
    if (const InstanceFailure* failure = dispenser.first_failure()) {
      first_failure_ = *failure;
      o.status = LoopOutcome::Status::Failed;
      o.kind = failure->kind;
      o.message = failure->message;
    } else if (dispenser.cancelled()) {
      o.status = LoopOutcome::Status::Cancelled;
    } else {
      for (auto& r : results) o.results.push_back(*r);
    }
    return o;
  }

  /// Rank 0's service thread: answers requests for work and takes results until every other rank
  /// has said it is done with this loop. The only thread of rank 0 that calls MPI meanwhile.
  void serve_ranks(InstanceDispenser& dispenser) {
    int ranks_working = size_ - 1, round = 0;
    while (ranks_working > 0) {
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &arrived, &status);
      if (!arrived) {
        nap(round);
        continue;
      }
      round = 0;
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      std::string bytes(static_cast<std::size_t>(count), '\0');
      MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE);
      if (status.MPI_TAG == kRankDone) {
        --ranks_working;
      } else if (status.MPI_TAG == kRequest) {
        // A few instances at a time while many are left (guided, as OpenMP's schedule): a cheap
        // instance then costs a fraction of a request's round trip, and the last ones still spread.
        std::vector<std::int64_t> batch;
        const long want = std::clamp<long>(dispenser.remaining() / (4L * size_), 1, 16);
        for (long k = 0; k < want; ++k) {
          const long i = dispenser.next();
          if (i < 0) break;
          batch.push_back(i);
        }
        MPI_Send(batch.data(), int(batch.size()), MPI_INT64_T, status.MPI_SOURCE, kReply, comm_);
      } else if (status.MPI_TAG == kResult) {
        try {
          ResultMessage m = wire::decode<ResultMessage>(bytes);
          if (m.failed)
            dispenser.failed(long(m.index), InstanceFailure{m.kind, m.bytes, nullptr});
          else
            dispenser.done(long(m.index), std::move(m.bytes), m.seconds);
        } catch (const std::exception& e) {
          dispenser.failed(0, InstanceFailure{InstanceFailure::Kind::Other,
                                              std::string("a rank's result was garbled: ") + e.what(), nullptr});
        }
      }
    }
  }

  /// A rank other than 0: its threads ask rank 0 for instances one at a time and send each
  /// result back, until rank 0 has none left; then it says so.
  void compute_for_rank_0(const std::function<std::string(long)>& work, int threads) {
    std::mutex talking;  // MPI_THREAD_SERIALIZED: one thread of this rank in MPI at a time
    std::deque<long> given;  // handed to this rank, not yet started
    const auto send = [&](const std::string& bytes, int tag) {
      MPI_Request request;
      MPI_Isend(bytes.data(), message_size(bytes), MPI_BYTE, 0, tag, comm_, &request);
      wait_for(request);
    };
    const auto next = [&]() -> long {
      const std::lock_guard<std::mutex> lock(talking);
      if (given.empty()) {
        send(std::string(), kRequest);
        MPI_Status status;
        int arrived = 0, round = 0;
        for (;;) {  // the reply's size is the batch's: probe for it, sleeping between probes
          MPI_Iprobe(0, kReply, comm_, &arrived, &status);
          if (arrived) break;
          nap(round);
        }
        int count = 0;
        MPI_Get_count(&status, MPI_INT64_T, &count);
        std::vector<std::int64_t> batch(static_cast<std::size_t>(count));
        MPI_Recv(batch.data(), count, MPI_INT64_T, 0, kReply, comm_, MPI_STATUS_IGNORE);
        for (const std::int64_t i : batch) given.push_back(long(i));
        if (given.empty()) return -1;  // rank 0 has none left for anyone
      }
      const long i = given.front();
      given.pop_front();
      return i;
    };
    const auto done = [&](long i, std::string bytes, double seconds) {
      const std::string m =
          wire::encode(ResultMessage{i, seconds, false, InstanceFailure::Kind::Other, std::move(bytes)});
      const std::lock_guard<std::mutex> lock(talking);
      send(m, kResult);
    };
    const auto failed = [&](long i, InstanceFailure why) {
      const std::string m = wire::encode(ResultMessage{i, 0, true, why.kind, why.message});
      const std::lock_guard<std::mutex> lock(talking);
      send(m, kResult);
    };
    run_on_threads(next, work, done, failed, threads);
    send(std::string(), kRankDone);
  }

  /// Rank 0's bytes to every rank, in pieces MPI's int counts can hold; waiting ranks sleep.
  void broadcast(std::string& bytes) {
    std::uint64_t size = bytes.size();
    MPI_Request request;
    MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, comm_, &request);
    wait_for(request);
    bytes.resize(size);
    for (std::uint64_t at = 0; at < size;) {
      const int piece = static_cast<int>(std::min<std::uint64_t>(size - at, std::uint64_t(1) << 30));
      MPI_Ibcast(bytes.data() + at, piece, MPI_BYTE, 0, comm_, &request);
      wait_for(request);
      at += std::uint64_t(piece);
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  InstanceFailure first_failure_;
};

}  // namespace

std::unique_ptr<InstanceFanout> join_mpi_job() {
  if (!launched_by_mpi()) return nullptr;
  auto job = std::make_unique<MpiFanout>();
  if (job->rank() != 0) g_speaks = false;  // (a launcher that gave no rank in the environment)
  return job;
}

#else

std::unique_ptr<InstanceFanout> join_mpi_job() {
  if (launched_by_mpi())
    input_error("mpirun", "this attnflow was built without Open MPI; install libopenmpi-dev and openmpi-bin and "
                          "build again (docs/cluster.md)");
  return nullptr;
}

#endif

}  // namespace attnflow::cli
