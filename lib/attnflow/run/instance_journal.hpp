#pragma once
// Finished instances kept on disk as they arrive, so that a run that dies (a crashed rank ends a
// whole MPI job) resumes with what it had done. Each record is appended whole with its length and
// checksum; reading stops at the first record that is incomplete or damaged (a crash in the middle
// of a write), and that tail is cut off before anything more is appended. Records reach the
// kernel at once (they survive the process, not a power cut: no fsync per instance).
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace attnflow {

class InstanceJournal {
 public:
  /// Opens the journal at `path`, creating it. keep = false starts it empty (a run that does not
  /// resume must not take instances from an earlier one). `writer` names the program writing it
  /// (program_build_id()): a journal another program wrote is started empty too, since its
  /// records are that program's binary layouts. InputError when it cannot be written.
  InstanceJournal(std::string path, bool keep, std::string writer = "");
  ~InstanceJournal();
  InstanceJournal(const InstanceJournal&) = delete;
  InstanceJournal& operator=(const InstanceJournal&) = delete;

  std::optional<std::string> find(const std::string& key) const;
  /// Appends (thread-safe). A key already present keeps its first value.
  void append(const std::string& key, const std::string& value);
  std::size_t size() const;
  /// True when a journal was there to keep and another program had written it (it was dropped).
  bool dropped_another_writers() const { return dropped_another_writers_; }
  /// The run is complete: nothing is left to resume.
  void remove();

 private:
  std::string path_;
  int fd_ = -1;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::string> records_;
  bool dropped_another_writers_ = false;
};

}  // namespace attnflow
