#include "attnflow/run/instance_journal.hpp"

#include "attnflow/errors.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace attnflow {

namespace {

constexpr char kMagic[8] = {'a', 't', 'f', 'j', 'r', 'n', 'l', '1'};

// FNV-1a over the record's key and value: a torn or damaged record is told from a whole one.
std::uint64_t checksum(const std::string& key, const std::string& value) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const unsigned char c : key) h = (h ^ c) * 1099511628211ULL;
  h = (h ^ 0xffU) * 1099511628211ULL;
  for (const unsigned char c : value) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string read_all(int fd) {
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    bytes.append(buf, static_cast<std::size_t>(got));
  }
  return bytes;
}

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    done += static_cast<std::size_t>(put);
  }
  return true;
}

template <class T> bool take(const std::string& bytes, std::size_t& pos, T& value) {
  if (bytes.size() - pos < sizeof value) return false;
  std::memcpy(&value, bytes.data() + pos, sizeof value);
  pos += sizeof value;
  return true;
}

/// The first record: who wrote the journal (no instance's key: theirs are scope, 0x1f, a loop's number, …).
const std::string kWriterKey = "\x1fwriter";

}  // namespace

InstanceJournal::InstanceJournal(std::string path, bool keep, std::string writer) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) input_error(path_, std::string("cannot open the instance journal: ") + std::strerror(errno));
  const std::string bytes = keep ? read_all(fd_) : std::string();
  std::size_t valid = 0;
  if (bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0) {
    std::size_t pos = valid = sizeof kMagic;
    for (;;) {
      std::uint64_t key_size = 0, value_size = 0, sum = 0;
      if (!take(bytes, pos, key_size) || !take(bytes, pos, value_size)) break;
      if (key_size > bytes.size() - pos || value_size > bytes.size() - pos - key_size) break;
      std::string key = bytes.substr(pos, key_size), value = bytes.substr(pos + key_size, value_size);
      pos += key_size + value_size;
      if (!take(bytes, pos, sum) || sum != checksum(key, value)) break;
      records_.emplace(std::move(key), std::move(value));
      valid = pos;
    }
  }
  if (valid > sizeof kMagic) {
    const auto it = records_.find(kWriterKey);
    if (it == records_.end() || it->second != writer) {  // another program's layouts: none is taken
      records_.clear();
      valid = 0;
      dropped_another_writers_ = true;
    }
  }
  // Whatever follows the last whole record (or a file that is no journal) is dropped.
  bool ok = ::ftruncate(fd_, static_cast<off_t>(valid)) == 0 && ::lseek(fd_, 0, SEEK_END) >= 0;
  if (ok && valid == 0) ok = write_all(fd_, std::string(kMagic, sizeof kMagic));
  if (!ok) {
    ::close(fd_);
    input_error(path_, std::string("cannot write the instance journal: ") + std::strerror(errno));
  }
  if (records_.empty()) append(kWriterKey, writer);
}

InstanceJournal::~InstanceJournal() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> InstanceJournal::find(const std::string& key) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = records_.find(key);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

void InstanceJournal::append(const std::string& key, const std::string& value) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0 || !records_.emplace(key, value).second) return;
  std::string record;
  const std::uint64_t key_size = key.size(), value_size = value.size(), sum = checksum(key, value);
  record.append(reinterpret_cast<const char*>(&key_size), sizeof key_size);
  record.append(reinterpret_cast<const char*>(&value_size), sizeof value_size);
  record += key;
  record += value;
  record.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  // One write per record: a crash leaves at most one torn record, at the end.
  if (!write_all(fd_, record))
    throw std::runtime_error(path_ + ": cannot append to the instance journal: " + std::strerror(errno));
}

std::size_t InstanceJournal::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return records_.size() - records_.count(kWriterKey);
}

void InstanceJournal::remove() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
  records_.clear();
}

}  // namespace attnflow
