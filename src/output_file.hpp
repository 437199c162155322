// How every program writes its output files (the partitioner's block file, tricount-count's
// --json, tricount-generate's edge file), written once here:
//  - checks made before any work: an output that names an input is refused, an output that
//    cannot be written is reported before the work, not after it;
//  - a regular file is written under a temporary name in its own directory, created
//    exclusively (O_EXCL | O_NOFOLLOW: a planted symlink or file is never followed or
//    truncated), and renamed over the final name only when complete;
//  - a target that is not a regular file (a device, a FIFO, "-", /dev/stdout) is written in
//    place, never replaced; a symlink is written through: its target is replaced, the link stays;
//  - temporary names say whose they are ("NAME.tmp.tricount-HOST-PID-RANDOM"), and stale
//    ones are removed only when provably ours: this host, our user, a dead pid, our format;
//  - SIGTERM, SIGINT and SIGHUP remove the temporaries (install_signal_cleanup).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tricount::output {

// A path the program reads (or appends to), with the option that named it, for messages.
struct NamedPath {
  std::string path;
  std::string_view option;
};

// Throws UsageError when `path` (the file named by `option`) is one of `others`: the same
// path, the same file (st_dev and st_ino) through a symlink, a hard link or /dev/stdout, or,
// for a file not made yet, the same place once both names are plain ("x" and "./x").
// Writing it would destroy that file. Empty paths are skipped.
void refuse_same_file(const std::string& path, std::string_view option, const std::vector<NamedPath>& others);

// Throws Error when `path` could not be written: its directory is missing or not writable,
// it is a directory, or (needs_regular_file, for HDF5) it is a device or a FIFO.
void check_writable(const std::string& path, std::string_view option, bool needs_regular_file = false);

// "cannot write OPTION 'OUTPUT': ERROR", with where to free space when the disk is full: a
// write into `output` (or its temporary) failed with `err`. Messages name the output as the
// user gave it, never its temporary (removed by the time the message is read).
[[noreturn]] void throw_output_write_error(const std::string& output, int err, std::string_view option = "output");

// One output file. A regular target (or a new one) is written to a fresh temporary next to
// it and renamed in commit(); a destroyed, uncommitted OutputFile removes its temporary.
// Other targets are written in place.
class OutputFile {
 public:
  // Creates `temp` exclusively (never following a symlink), or returns false if it exists.
  // The default opens it; HDF5 creates its own file with H5F_ACC_EXCL.
  using Creator = std::function<bool(const std::string& temp)>;

  OutputFile(const std::string& path, std::string_view option, const Creator& create = {});
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool in_place() const { return in_place_; }
  const std::string& path() const { return path_; }
  const std::string& write_path() const { return in_place_ ? path_ : temp_; }  // where the bytes go now
  int fd() const { return fd_; }  // -1 with a Creator (the creator has its own handle)
  void write(std::string_view bytes);
  // A temporary's bytes so far reach the disk (fsync) now, so that a caller can time it and
  // find a full disk before commit(); in-place targets are left alone. Errors name the output.
  void sync();
  // Closes the descriptor; for a temporary, fsyncs it, renames it over the target, fsyncs
  // the directory. Errors name the output.
  void commit();

 private:
  std::string path_, option_, target_, temp_;
  int fd_ = -1;
  bool in_place_ = false;
  bool committed_ = false;
};

// Writes `text` to `path` ("-" is standard output) as an OutputFile.
void write_text_file(const std::string& path, std::string_view option, std::string_view text);

// True when `path` ("-", /dev/stdout, /dev/fd/1) is this process's standard output.
bool is_standard_output(const std::string& path);

// True when an OutputFile for `path` would write it in place (a standard stream, a device,
// a FIFO) rather than as a new regular file: no file beside it is then one of its outputs.
bool writes_in_place(const std::string& path);

// Removes temporaries that a killed writer of `path` left ("NAME.tmp.tricount-HOST-PID-R"),
// only where provably its own: this host's name, a pid that no longer runs here, our user,
// a regular file that starts with `signature` (the format's magic bytes). Returns how many.
std::size_t remove_stale_temps(const std::string& path, std::string_view signature);
// The first bytes of an HDF5 file (its superblock at offset 0), the signature of HDF5 outputs.
inline constexpr std::string_view kHdf5Signature{"\x89HDF\r\n\x1a\n", 8};

// "PREFIX<host>-<pid>-" for names of this process's scratch files and directories, and
// whether `name` (with that prefix) belongs to a process of this host that no longer runs.
std::string owned_name_prefix(std::string_view prefix);
bool owner_is_gone(std::string_view name, std::string_view prefix);

bool process_alive(long pid);

// Removes a file or a whole tree, ignoring errors (cleanup paths, scratch folders).
void remove_quietly(const std::string& path);

// Paths (files or directories) removed if the process is interrupted by a signal.
void register_cleanup_path(const std::string& path);
void unregister_cleanup_path(const std::string& path);
// Runs `make` (which creates a file or directory and returns its path, or "" when it made
// nothing) under the registry's lock and registers what it made, so that a signal in between
// waits for both: the watcher never misses a path that exists. Once interrupted, it makes
// nothing and waits for the watcher's exit.
std::string make_registered(const std::function<std::string()>& make);
// For programs: blocks SIGTERM, SIGINT and SIGHUP in the calling thread (call it before any
// thread starts, so that every thread inherits the mask) and starts a watcher thread that, on
// one of them, removes the registered paths, prints "<program>: interrupted by SIG...;
// temporary files removed, <left>" and exits with 128 + the signal number.
void install_signal_cleanup(const std::string& program, const std::string& left = "no output written");
// What the watcher prints first on a signal, before it removes the files (e.g. the tasks in
// flight); nullptr: nothing. Called on the watcher's thread, not in a signal handler.
using InterruptNote = void (*)(int signal);
void set_interrupt_note(InterruptNote note);
// True once the watcher has caught a signal (it is removing the files, then exits).
bool interrupted();
// If interrupted(): waits for the watcher to end the process (an error caused by the
// removal of the files is not reported); else returns at once.
void wait_if_interrupted();

}  // namespace tricount::output
