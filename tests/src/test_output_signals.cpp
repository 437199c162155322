// The signal watcher of src/output_file.hpp (install_signal_cleanup) in a child process: on
// SIGTERM it removes the temporaries of outputs being written and exits with 128 + 15, and
// says which outputs were complete before the signal (they stay), not "no output written".
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "src/output_file.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tricount;
using namespace tricount::testing;

struct Stopped {
  int exit_code = -1;
  std::string err;
};

// Runs `body` in a child with the watcher installed, then sends the child SIGTERM.
template <class Body>
Stopped stop_child_after(const TempDir& dir, Body&& body) {
  const std::string err = dir.file("err.txt");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    output::install_signal_cleanup("watched", "no output written");
    body();
    ::kill(::getpid(), SIGTERM);  // to the process: the watcher's sigwait takes it
    for (;;) ::pause();
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), read_file(err)};
}

TEST(OutputSignals, ATemporaryIsRemovedAndNothingIsSaidWritten) {
  TempDir dir;
  const Stopped s = stop_child_after(dir, [&] {
    static output::OutputFile open(dir.file("half.txt"), "--out");  // never committed
    open.write("half");
  });
  EXPECT_EQ(s.exit_code, 128 + SIGTERM) << s.err;
  EXPECT_TRUE(contains(s.err, "watched: interrupted by SIGTERM; temporary files removed, no output written")) << s.err;
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_TRUE(e.path().filename() == "err.txt") << "left: " << e.path();
}

TEST(OutputSignals, AnOutputCompleteBeforeTheSignalIsKeptAndNamed) {
  TempDir dir;
  const std::string done = dir.file("done.txt");
  const Stopped s = stop_child_after(dir, [&] {
    output::write_text_file(done, "--out", "complete\n");
    static output::OutputFile open(dir.file("half.txt"), "--out");
    open.write("half");
  });
  EXPECT_EQ(s.exit_code, 128 + SIGTERM) << s.err;
  EXPECT_TRUE(contains(s.err, "watched: interrupted by SIGTERM; temporary files removed, complete before it and kept: '" +
                                  done + "'"))
      << s.err;
  EXPECT_EQ(read_file(done), "complete\n");
  EXPECT_FALSE(fs::exists(dir.file("half.txt")));
}

// tricount-count's own block file is complete (committed) inside a temporary folder that the
// signal removes: it is not named as kept.
TEST(OutputSignals, AnOutputInsideARemovedTemporaryFolderIsNotSaidKept) {
  TempDir dir;
  const std::string scratch = dir.file("scratch");
  const Stopped s = stop_child_after(dir, [&] {
    fs::create_directory(scratch);
    output::register_cleanup_path(scratch);
    output::write_text_file(scratch + "/graph.h5", "--save-blocks", "blocks\n");
  });
  EXPECT_EQ(s.exit_code, 128 + SIGTERM) << s.err;
  EXPECT_TRUE(contains(s.err, "watched: interrupted by SIGTERM; temporary files removed, no output written")) << s.err;
  EXPECT_FALSE(fs::exists(scratch));
}

}  // namespace
