#pragma once
// Where the loops over a run's instances are computed. Without a fanout, run_instances runs its
// loop on this process's threads, as always. With one installed, run_instances hands it the loop
// in the exact wire form of its results (io/wire.hpp), and the fanout decides where each instance
// runs: LocalFanout on this process's threads, skipping what the instance journal already holds;
// an MPI fanout (cli/) on every rank of a job, rank 0 handing out instances as ranks ask. Each
// rank runs the same program and takes the same decisions from the same results, so a loop is
// entered by every rank in the same order, and its results come back identical on every rank.
#include "attnflow/run/instance_journal.hpp"
#include "attnflow/run/instance_monitor.hpp"

#include <atomic>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace attnflow {

class InstanceFanout {
 public:
  virtual ~InstanceFanout() = default;
  /// Takes one new result: its index, its wire form and the seconds computing it took.
  using Record = std::function<void(long, const std::string&, double)>;

  /// work(i) for every i < count, wherever the fanout runs it; every result in index order, the
  /// same on every rank. An instance the journal holds is taken from it, and each new one is
  /// added to it as it arrives. Rethrows the failure of the lowest failing index; Cancelled when
  /// the installed monitor (rank 0's) asks to stop.
  /// in_turn: one instance at a time in each process (work sets the MPFR precision, which is
  /// process-wide); the processes of an MPI job still share them out.
  std::vector<std::string> run(long count, const std::function<std::string(long)>& work, bool in_turn = false);

  /// The process that writes files and talks to the user; the others compute beside it.
  virtual bool coordinator() const { return true; }
  /// The coordinator's `value`, on every process (the resumed results.json all ranks start from,
  /// a decision to stop between checks).
  virtual std::string shared(const std::string& value) { return value; }
  virtual int processes() const { return 1; }

  /// The loops that follow belong to `scope` (a check and the digest of its specification): the
  /// journal's keys are scope, the loop's number within it, its size and the index.
  void begin_scope(const std::string& scope);
  /// Keeps instances in `journal` (the coordinator's; nullptr: none).
  void attach_journal(InstanceJournal* journal) { journal_ = journal; }
  /// How many results, since the fanout was made, were taken from the journal instead of computed.
  std::size_t taken_from_journal() const { return taken_from_journal_; }

  /// What the loops of a scope cost, as the coordinator saw it: the instances computed, their
  /// seconds each (summed, and the longest), and the loops' wall time. What scaling over more
  /// processes can gain, and where it stops (docs/cluster.md).
  struct Cost {
    long instances = 0;
    double instance_seconds = 0, loop_seconds = 0;
    std::vector<double> each;  // every instance's seconds, in the order they arrived
    double quantile(double q) const;  // of `each` (0 when empty); q = 1: the longest
  };
  Cost cost_of_scope() const { return cost_; }

 protected:
  /// Fills every empty result with work's. `record(i, bytes, seconds)` is called once for each new
  /// result, from one thread at a time, as it arrives (seconds: the time work(i) took).
  /// `threads`: this process's threads for the loop (0: all; 1: in turn).
  virtual void distribute(std::vector<std::optional<std::string>>& results,
                          const std::function<std::string(long)>& work, const Record& record, int threads) = 0;

 private:
  std::string scope_;
  long ordinal_ = 0;
  InstanceJournal* journal_ = nullptr;
  std::size_t taken_from_journal_ = 0;
  Cost cost_;
};

/// This process's threads (OpenMP, dynamic schedule), as run_instances' own loop.
class LocalFanout : public InstanceFanout {
 protected:
  void distribute(std::vector<std::optional<std::string>>& results, const std::function<std::string(long)>& work,
                  const Record& record, int threads) override;
};

/// The fanout in effect (nullptr: run_instances runs its loops itself).
InstanceFanout* current_instance_fanout();

/// Installs a fanout for its lifetime (process-wide, as the instance monitor).
class ScopedInstanceFanout {
 public:
  explicit ScopedInstanceFanout(InstanceFanout* f);
  ~ScopedInstanceFanout();
  ScopedInstanceFanout(const ScopedInstanceFanout&) = delete;
  ScopedInstanceFanout& operator=(const ScopedInstanceFanout&) = delete;

 private:
  InstanceFanout* previous_;
};

/// True on a thread that is computing one instance of a loop: a loop inside an instance runs
/// where its instance runs, not through the fanout (ranks meet only at the outermost loops).
bool inside_instance();
class InstanceBody {
 public:
  InstanceBody();
  ~InstanceBody();
  InstanceBody(const InstanceBody&) = delete;
  InstanceBody& operator=(const InstanceBody&) = delete;

 private:
  bool previous_;
};

/// A failure of one instance, in a form that crosses a process boundary: rethrown as what it was
/// (an InputError stays bad input: exit 2; Cancelled stays a stop; a state outside the model's
/// domain stays a DegenerateStateError). In this process the exception itself is kept.
struct InstanceFailure {
  enum class Kind : int { Other = 0, Input = 1, Cancelled = 2, Degenerate = 3 } kind = Kind::Other;
  std::string message;
  std::exception_ptr original;  // only in the process that caught it
  static InstanceFailure from_current_exception();
  [[noreturn]] void rethrow() const;
};

/// One loop's instances as a coordinator hands them out: the missing ones in index order until
/// the monitor asks to stop; each result recorded and stored as it arrives (from any thread, or
/// from another process); failures kept by index, the lowest rethrown whatever the timing.
class InstanceDispenser {
 public:
  InstanceDispenser(std::vector<std::optional<std::string>>& results, const InstanceFanout::Record& record);
  long next();  // the next index to compute, or -1: none left (or asked to stop)
  void done(long i, std::string bytes, double seconds);
  void failed(long i, InstanceFailure why);
  long remaining() const { return remaining_.load(); }  // not yet handed out
  bool cancelled() const { return cancelled_; }          // after the loop
  const InstanceFailure* first_failure() const { return failures_.empty() ? nullptr : &failures_.begin()->second; }
  /// After the loop: rethrows the lowest failure, else Cancelled when asked to stop.
  void rethrow() const;

 private:
  std::vector<std::optional<std::string>>& results_;
  const InstanceFanout::Record& record_;
  InstanceMonitor* monitor_;
  std::mutex mutex_;
  std::deque<long> missing_;
  std::atomic<long> remaining_{0};
  std::map<long, InstanceFailure> failures_;
  bool cancelled_ = false;
};

/// work(i) on this process's threads (an OpenMP team of `threads`, 0: the default) for each index
/// next() hands out, until it returns a negative one; done(i, bytes, seconds) or failed(i, why) as each instance ends. The
/// callbacks are called from several threads at once: they lock what they share.
void run_on_threads(const std::function<long()>& next, const std::function<std::string(long)>& work,
                    const std::function<void(long, std::string, double)>& done,
                    const std::function<void(long, InstanceFailure)>& failed, int threads = 0);

}  // namespace attnflow
