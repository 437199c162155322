// main() of the GoogleTest executables that ctest runs under mpiexec (tricount_mpi_gtest in
// tests/CMakeLists.txt). Every rank runs every test; only rank 0 prints. At the end of each
// test the failures of every rank are gathered to rank 0 and added there as failures naming
// their rank, so a check that fails on rank 3 alone fails the test, with its file, line and
// message, in rank 0's output (as KaMPIng's and LLNL's gtest-mpi-listener do). The exit status
// is the same on every rank: 1 if any rank failed a test.
//
// Listing the tests (--gtest_list_tests, how ctest discovers them) runs without MPI.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

int comm_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int comm_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// A rank's failures in one test, one record each: file, line, message, NUL-separated.
std::string failures_of(const ::testing::TestResult& result) {
  std::string text;
  for (int k = 0; k < result.total_part_count(); ++k) {
    const ::testing::TestPartResult& part = result.GetTestPartResult(k);
    if (!part.failed()) continue;
    text += std::string(part.file_name() ? part.file_name() : "") + '\0' + std::to_string(part.line_number()) + '\0' +
            part.message() + '\0';
  }
  return text;
}

// Appended after the result printer: gtest calls OnTestEnd in reverse order, so this runs
// first and the printer then reports the test with every rank's failures in it. It handles no
// OnTestPartResult, which is what lets it add failures (GoogleTest's rule for listeners).
class GatherFailures : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& test) override {
    const std::string mine = comm_rank() == 0 ? std::string() : failures_of(*test.result());
    const int size = comm_size();
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(size));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displacements(static_cast<std::size_t>(size), 0);
    for (int r = 1; r < size; ++r) displacements[r] = displacements[r - 1] + lengths[r - 1];
    std::vector<char> all(comm_rank() == 0 ? static_cast<std::size_t>(displacements.back() + lengths.back()) : 0);
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displacements.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (comm_rank() != 0) return;
    for (int r = 1; r < size; ++r) {
      const char* p = all.data() + displacements[r];
      const char* end = p + lengths[r];
      while (p < end) {
        const std::string file = p;
        p += file.size() + 1;
        const int line = std::atoi(p);
        p += std::strlen(p) + 1;
        const std::string message = p;
        p += message.size() + 1;
        ADD_FAILURE_AT(file.empty() ? "unknown file" : file.c_str(), line)
            << "on rank " << r << " of " << size << ":\n" << message;
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  bool listing = false;
  for (int k = 1; k < argc; ++k) listing |= std::strcmp(argv[k], "--gtest_list_tests") == 0;
  ::testing::InitGoogleTest(&argc, argv);
  if (listing) return RUN_ALL_TESTS();

  MPI_Init(&argc, &argv);
  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (comm_rank() != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new GatherFailures);
  int failed = RUN_ALL_TESTS();
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
