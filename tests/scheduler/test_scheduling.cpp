// The scheduler's policy (task queue, static assignment, auto splits) and journal, without MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "count/count_job.hpp"
#include "scheduler/journal.hpp"
#include "scheduler/task_queue.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

TEST(TaskQueue, CostliestFirstAndEveryTaskExactlyOnce) {
  const TaskPlan plan(3, 2);
  std::vector<std::uint64_t> work(27);
  for (std::size_t x = 0; x < work.size(); ++x) work[x] = (x * 7919) % 101 + 1;
  TaskQueue q(plan, work, {});
  std::set<std::uint64_t> seen;
  double previous = 1e300;
  while (auto id = q.pop(-1)) {  // no worker: pure cost order
    EXPECT_TRUE(seen.insert(*id).second);
    EXPECT_LE(q.estimate(*id), previous);
    previous = q.estimate(*id);
  }
  EXPECT_EQ(seen.size(), plan.num_tasks());
}

TEST(TaskQueue, PrefersTasksSharingBlocksWithinTheWindow) {
  const TaskPlan plan(4, 1);
  std::vector<std::uint64_t> work(64, 10);
  const auto at = [&](std::uint32_t i, std::uint32_t j, std::uint32_t k) { return plan.encode({i, j, k, 0}); };
  work[at(1, 2, 3)] = 100;  // first out: holds P(1,3), P(1,2), P(2,3)
  work[at(0, 0, 0)] = 60;   // next by cost and id, shares nothing
  work[at(1, 2, 2)] = 60;   // same cost, shares P(1,2) twice
  TaskQueue q(plan, work, {});
  EXPECT_EQ(*q.pop(1), at(1, 2, 3));
  EXPECT_EQ(*q.pop(1), at(1, 2, 2)) << "worker 1 holds P(1,2)";
  EXPECT_EQ(*q.pop(2), at(0, 0, 0)) << "worker 2 holds nothing: costliest first";
}

TEST(TaskQueue, RemembersTheBlocksOfEarlierTasksNotOnlyThePrevious) {
  const TaskPlan plan(4, 1);
  std::vector<std::uint64_t> work(64, 10);
  const auto at = [&](std::uint32_t i, std::uint32_t j, std::uint32_t k) { return plan.encode({i, j, k, 0}); };
  work[at(1, 2, 3)] = 100;  // A: P(1,3), P(1,2), P(2,3)
  work[at(0, 0, 0)] = 90;   // B: P(0,0) only, alone above half of its cost
  work[at(0, 3, 3)] = 40;   // first by id among the 40s, shares nothing with A or B
  work[at(1, 2, 1)] = 40;   // shares P(1,2) with A
  TaskQueue q(plan, work, {});
  EXPECT_EQ(*q.pop(1), at(1, 2, 3));
  EXPECT_EQ(*q.pop(1), at(0, 0, 0));
  EXPECT_EQ(*q.pop(1), at(1, 2, 1)) << "worker 1 still holds P(1,2) from two tasks ago";
}

TEST(TaskQueue, AffinityNeverSkipsPastMuchCostlierWork) {
  // One task is 100x costlier than the rest; whoever asks next must get it, held blocks or not.
  const TaskPlan plan(2, 1);
  std::vector<std::uint64_t> work(8, 1);
  work[5] = 100;
  TaskQueue q(plan, work, {});
  EXPECT_EQ(*q.pop(1), 5u);
}

TEST(TaskQueue, SkipsFinishedTasksAndFallsBackToBlockSizes) {
  const TaskPlan plan(2, 1);
  std::vector<std::uint64_t> nnz = {10, 1000, 1, 1};  // P(0,1) is big
  TaskQueue q(plan, {}, nnz, {0, 1, 2});
  std::set<std::uint64_t> got;
  while (auto id = q.pop(-1)) got.insert(*id);
  EXPECT_EQ(got, (std::set<std::uint64_t>{3, 4, 5, 6, 7}));
  TaskQueue fresh(plan, {}, nnz);
  const Task t = plan.decode(*fresh.pop(-1));
  EXPECT_TRUE(t.one_hop_block() == (BlockId{0, 1}) || t.two_hop_block() == (BlockId{0, 1}) ||
              t.hash_block() == (BlockId{0, 1}));
}

// auto: a task per worker, more only where the tasks would not divide evenly (each split
// repeats the subtask's row walk and hub tables); one for a single worker.
TEST(AutoSplits, ATaskPerWorkerAndOneForASingleWorker) {
  EXPECT_EQ(auto_workload_splits(1, 1), 1u);
  EXPECT_EQ(auto_workload_splits(4, 1), 1u);
  EXPECT_EQ(auto_workload_splits(1, 8), 8u);
  EXPECT_EQ(auto_workload_splits(2, 8), 1u);  // 8 subtasks for 8 workers
  EXPECT_EQ(auto_workload_splits(2, 12), 3u); // 8 subtasks, 12 workers: 24 tasks, 2 each (16 would leave 4 with 1)
  EXPECT_EQ(auto_workload_splits(4, 48), 3u); // 64 subtasks: 192 tasks, 4 each (64 would give 16 workers 2)
  EXPECT_EQ(auto_workload_splits(4, 8), 1u);  // 64 subtasks are enough
  EXPECT_EQ(auto_workload_splits(1, 100000), kMaxWorkloadSplits);
}

TEST(Journal, RoundTripTornLastLineAndRefusal) {
  TempDir dir;
  const std::string path = dir.file("run.journal");
  const JournalIdentity id{12345, 2, 3, 100, 200, "graph.h5"};
  {
    JournalWriter w(path, id, false);
    w.append({4, 10, 0.5, 1, 7.0});
    w.append({7, 20, 0.25, 2, 3.0});
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "9 3";  // torn by a kill mid-write
  }
  JournalContents j = read_journal(path);
  EXPECT_TRUE(j.torn_last_line);
  ASSERT_EQ(j.records.size(), 2u);
  EXPECT_EQ(j.records[1].task, 7u);
  EXPECT_EQ(j.identity.graph_checksum, 12345u);
  check_journal_identity(path, j.identity, id);
  JournalIdentity other = id;
  other.graph_checksum = 999;
  EXPECT_THROW(check_journal_identity(path, j.identity, other), Error);
  other = id;
  other.splits = 1;
  EXPECT_THROW(check_journal_identity(path, j.identity, other), Error);
  {
    JournalWriter w(path, id, true);  // resume: the torn line goes, new records follow
    w.append({9, 30, 0.1, 1, 1.0});
  }
  j = read_journal(path);
  EXPECT_FALSE(j.torn_last_line);
  ASSERT_EQ(j.records.size(), 3u);
  EXPECT_EQ(j.records[2].triangles, 30u);
}

// A newline in the input's name used to split the identity line, and the journal then read
// as damaged on --resume (issue 14 item 15).
TEST(Journal, ControlBytesInTheInputNameKeepTheIdentityOneLine) {
  TempDir dir;
  const std::string path = dir.file("run.journal");
  const JournalIdentity id{777, 2, 1, 10, 20, "dir/odd\nname\r.h5"};
  {
    JournalWriter w(path, id, false);
    w.append({1, 5, 0.5, 1, 1.0});
  }
  const JournalContents j = read_journal(path);
  ASSERT_EQ(j.records.size(), 1u);
  EXPECT_EQ(j.identity.input, "dir/odd\\nname\\r.h5");
  check_journal_identity(path, j.identity, id);
  JournalWriter resumed(path, id, true);
  resumed.append({2, 6, 0.5, 1, 1.0});
  EXPECT_EQ(read_journal(path).records.size(), 2u);
}

TEST(Journal, DamageInTheMiddleIsAnError) {
  TempDir dir;
  const std::string path = dir.file("bad.journal");
  {
    std::ofstream out(path);
    out << "# tricount-journal 1\n# graph_checksum=1 parts=1 splits=1 vertices=3 edges=3 input=x\n0 1 0.1 1 1\nbogus\n1 1 0.1 1 1\n";
  }
  try {
    read_journal(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(":4:"), std::string::npos) << e.what();
  }
  {
    std::ofstream out(path);
    out << "some other file\n";
  }
  EXPECT_THROW(read_journal(path), Error);
  EXPECT_THROW(read_journal_identity(path), Error);
}

// A changed digit that still parses (a triangle count) is found by the record's check value,
// not added to a resumed total; a version 2 record without it is damage; version 1 journals
// read as before, and a resumed one gets checked records.
TEST(Journal, EachRecordCarriesACheckValue) {
  TempDir dir;
  const std::string path = dir.file("run.journal");
  const JournalIdentity id{7, 2, 1, 10, 20, "g.h5"};
  {
    JournalWriter w(path, id, false);
    w.begin_run("dynamic", 2);
    w.append({3, 526, 0.25, 1, 2.0, 0.01});
    w.append({4, 17, 0.5, 2, 1.0, 0.02});
  }
  const auto text = [&] {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string good = text();
  ASSERT_TRUE(good.starts_with("# tricount-journal 2\n")) << good;
  EXPECT_EQ(read_journal(path).records.at(0).triangles, 526u);
  const auto expect_damage = [&](const std::string& changed, const std::string& words, const std::string& line) {
    std::ofstream(path) << changed;
    try {
      read_journal(path);
      ADD_FAILURE() << "read: " << changed;
    } catch (const Error& e) {
      EXPECT_TRUE(std::string(e.what()).find(words) != std::string::npos) << e.what();
      EXPECT_TRUE(std::string(e.what()).find(":" + line + ":") != std::string::npos) << e.what();
    }
  };
  std::string changed = good;
  changed.replace(changed.find(" 526 "), 5, " 926 ");
  expect_damage(changed, "does not match its check value", "4");
  changed = good;
  const std::size_t second = changed.find("\n4 17 ");
  changed.erase(changed.rfind(' '), changed.size() - changed.rfind(' ') - 1);  // the last record's check
  ASSERT_NE(second, std::string::npos);
  expect_damage(changed, "has no check value", "5");
  // Version 1: records without check values read; a resume appends checked ones.
  std::ofstream(path) << "# tricount-journal 1\n# graph_checksum=7 parts=2 splits=1 vertices=10 edges=20 input=g.h5\n"
                         "3 526 0.25 1 2 0.01\n";
  ASSERT_EQ(read_journal(path).records.size(), 1u);
  {
    JournalWriter w(path, id, true);
    w.append({4, 17, 0.5, 2, 1.0, 0.02});
  }
  const JournalContents both = read_journal(path);
  ASSERT_EQ(both.records.size(), 2u);
  EXPECT_EQ(both.records[0].triangles + both.records[1].triangles, 543u);
  changed = text();
  changed.replace(changed.find("\n4 17 "), 6, "\n4 19 ");
  expect_damage(changed, "does not match its check value", "4");
}

// The header alone (tricount-count --resume asks it for the journal's parts): the same
// identity as the whole read, with the records neither read nor checked.
TEST(Journal, IdentityAloneSkipsTheRecords) {
  TempDir dir;
  const std::string path = dir.file("run.journal");
  {
    std::ofstream out(path);
    out << "# tricount-journal 1\n# graph_checksum=5 parts=3 splits=2 vertices=30 edges=40 input=g.h5\n0 1 0.1 1 1\nbogus\n";
  }
  const JournalIdentity id = read_journal_identity(path);
  EXPECT_EQ(id.graph_checksum, 5u);
  EXPECT_EQ(id.parts, 3u);
  EXPECT_EQ(id.splits, 2u);
  EXPECT_EQ(id.input, "g.h5");  // no such file beside the journal: kept as given, as read_journal does
  EXPECT_THROW(read_journal(path), Error);  // the damaged record
  std::ofstream(path) << "# tricount-journal 1\n";
  EXPECT_THROW(read_journal_identity(path), Error);  // no header
}

// Issue 14 item 3: a record is exactly what the writer writes or an error naming the
// journal and line; `istream >> uint64` read "-5" as 2^64 - 5 and resumed a wrong total.
TEST(Journal, RecordsAreParsedStrictly) {
  TempDir dir;
  const std::string path = dir.file("strict.journal");
  // n = 2, m = 2: 16 tasks, so that the records' tasks 7 and 8 are in the plan.
  const std::string header = "# tricount-journal 1\n# graph_checksum=1 parts=2 splits=2 vertices=3 edges=3 input=x\n";
  const char* const bad_records[] = {
      "0 -5 0.1 1 1",                    // negative count
      "0 18446744073709551621 0.1 1 1",  // 2^64 + 5 wraps
      "-1 5 0.1 1 1",                    // negative task
      "0 +5 0.1 1 1",                    // sign the writer never writes
      "0 5 0.1 -1 1",                    // negative rank
      "0 5 0.1 4294967296 1",            // rank beyond int
      "0 5 -0.1 1 1",                    // negative seconds
      "0 5 nan 1 1",                     // not finite
      "0 5 0.1 1 inf",
      "0 5 0.1 1 1 -2",                  // load below the -1 of "unknown"
      "0x1 5 0.1 1 1",                   // not decimal
      "1.5 5 0.1 1 1",                   // fractional task
      "0 5 0.1 1",                       // too few fields
      "0 5 0.1 1 1 0.1 7",               // too many
      "0  5 0.1 1 1",                    // two spaces
      "0 5 0.1 1 1 ",                    // trailing space
      " 0 5 0.1 1 1",                    // leading space
      "0 5x 0.1 1 1",                    // trailing garbage
  };
  for (const char* bad : bad_records) {
    for (bool last : {false, true}) {  // a complete bad last line is damage, not a torn write
      {
        std::ofstream out(path, std::ios::binary);
        out << header << "7 1 0.1 1 1\n" << bad << "\n" << (last ? "" : "8 1 0.1 1 1\n");
      }
      try {
        read_journal(path);
        ADD_FAILURE() << "accepted '" << bad << "'";
      } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("journal '" + path + "':4:"), std::string::npos) << bad << ": " << message;
        EXPECT_NE(message.find(bad), std::string::npos) << message;
      }
    }
  }
  const char* const bad_headers[] = {
      "# graph_checksum=-1 parts=1 splits=1 vertices=3 edges=3 input=x",
      "# graph_checksum=1 parts=4294967297 splits=1 vertices=3 edges=3 input=x",
      "# graph_checksum=1 parts=1 splits=+1 vertices=3 edges=3 input=x",
      "# graph_checksum=1 parts=1 splits=1 vertices=3 edges= 3 input=x",
      "# graph_checksum=1 splits=1 parts=1 vertices=3 edges=3 input=x",
      "# graph_checksum=1 parts=1 splits=1 vertices=3 edges=3",
  };
  for (const char* bad : bad_headers) {
    {
      std::ofstream out(path, std::ios::binary);
      out << "# tricount-journal 1\n" << bad << "\n7 1 0.1 1 1\n";
    }
    try {
      read_journal(path);
      ADD_FAILURE() << "accepted header '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("journal '" + path + "':2:"), std::string::npos) << bad << ": " << e.what();
    }
  }
}

// What the writer writes reads back (including a path with spaces, %.9g exponents and a
// torn last line); CRLF line endings read the same.
TEST(Journal, WrittenRecordsAndCrlfJournalsRead) {
  TempDir dir;
  const std::string path = dir.file("crlf.journal");
  {
    std::ofstream out(path, std::ios::binary);
    out << "# tricount-journal 1\r\n# graph_checksum=18446744073709551615 parts=2 splits=3 vertices=10 edges=20 "
           "input=a b.h5\r\n"
           "0 18446744073709551615 1e-05 1 2.5e+10 0.125\r\n1 0 0 2 0\r\n2 3 0.5 1 1 -1\r\n3 4";
  }
  const JournalContents j = read_journal(path);
  EXPECT_EQ(j.identity.graph_checksum, UINT64_MAX);
  EXPECT_EQ(j.identity.parts, 2u);
  EXPECT_EQ(j.identity.splits, 3u);
  EXPECT_EQ(j.identity.input, "a b.h5");
  ASSERT_EQ(j.records.size(), 3u);
  EXPECT_EQ(j.records[0].triangles, UINT64_MAX);
  EXPECT_DOUBLE_EQ(j.records[0].seconds, 1e-05);
  EXPECT_DOUBLE_EQ(j.records[0].estimate, 2.5e10);
  EXPECT_DOUBLE_EQ(j.records[0].load_seconds, 0.125);
  EXPECT_LT(j.records[1].load_seconds, 0);
  EXPECT_EQ(j.records[2].rank, 1);
  EXPECT_TRUE(j.torn_last_line);
}

// The load column: written, read back, and absent (-1) in five-field journals.
TEST(Journal, LoadColumnRoundTripsAndIsOptional) {
  TempDir dir;
  const std::string path = dir.file("load.journal");
  const JournalIdentity id{1, 1, 2, 3, 3, "x"};  // m = 2: tasks 0 and 1 are in the plan
  {
    JournalWriter w(path, id, false);
    w.append({0, 1, 0.5, 1, 1.0, 0.125});
  }
  EXPECT_DOUBLE_EQ(read_journal(path).records.at(0).load_seconds, 0.125);
  {
    // A version 1 journal (no check values) with a record from before the load column.
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(0, text.find('\n'), "# tricount-journal 1");
    std::ofstream(path) << text << "1 1 0.1 1 1\n";
  }
  const JournalContents j = read_journal(path);
  ASSERT_EQ(j.records.size(), 2u);
  EXPECT_DOUBLE_EQ(j.records[0].load_seconds, 0.125);
  EXPECT_LT(j.records[1].load_seconds, 0);
}

// Issue 21: block affinity keeps each worker on the blocks it holds, so that the blocks a
// worker loads fall as workers are added (and longest-processing-time-first still evens out
// the finish times). W workers ask in the order they would finish (each task's estimate as
// its time) on a graph of 8 parts with skewed task costs, as a degree-ordered graph has.
TEST(TaskQueue, BlocksPerWorkerFallAsWorkersAreAdded) {
  const TaskPlan plan(8, 1);
  std::vector<std::uint64_t> work(512);
  for (std::uint64_t x = 0; x < work.size(); ++x) {
    const Task t = plan.decode(x);
    work[x] = 1000 / ((t.i + 1) * (t.j + 1)) + 100 / (t.k + 1) + (x * 7919) % 13;
  }
  std::vector<double> blocks_per_worker, efficiency;
  for (int workers : {1, 2, 4, 8, 15}) {
    TaskQueue q(plan, work, {});
    std::vector<double> free_at(workers + 1, 0.0);
    std::vector<std::set<std::uint64_t>> held(workers + 1);
    double busy = 0;
    for (;;) {
      int next = 1;  // the worker that finishes first asks next
      for (int w = 2; w <= workers; ++w)
        if (free_at[w] < free_at[next]) next = w;
      const std::optional<std::uint64_t> id = q.pop(next);
      if (!id) break;
      const Task t = plan.decode(*id);
      for (const BlockId& b : {t.hash_block(), t.one_hop_block(), t.two_hop_block()}) held[next].insert(b.row_class * 8 + b.col_class);
      free_at[next] += q.estimate(*id);
      busy += q.estimate(*id);
    }
    double blocks = 0;
    for (int w = 1; w <= workers; ++w) blocks += held[w].size();
    blocks_per_worker.push_back(blocks / workers / 64);
    efficiency.push_back(busy / workers / *std::max_element(free_at.begin() + 1, free_at.end()));
  }
  std::string shares;
  for (std::size_t k = 0; k < blocks_per_worker.size(); ++k)
    shares += " " + std::to_string(blocks_per_worker[k]) + " (efficiency " + std::to_string(efficiency[k]) + ")";
  SCOPED_TRACE("share of the blocks per worker at 1, 2, 4, 8, 15 workers:" + shares);
  for (std::size_t k = 1; k < blocks_per_worker.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_LT(blocks_per_worker[k], blocks_per_worker[k - 1]);
    EXPECT_GE(efficiency[k], 0.95);
  }
  EXPECT_LE(blocks_per_worker.back(), 0.40) << "15 workers each hold at most 40% of the blocks";
}

// The static schedule (tricount-count --schedule static): every task once, the same lists
// for the same queue, the costs balanced within LPT's bound, and fewer blocks per worker
// than dealing the tasks out in id order.
TEST(StaticAssignment, EveryTaskOnceDeterministicAndBalanced) {
  const TaskPlan plan(5, 3);
  std::vector<std::uint64_t> work(125);
  for (std::size_t x = 0; x < work.size(); ++x) work[x] = (x * 7919) % 997 + 1 + (x % 17 == 0 ? 20000 : 0);  // a few hubs
  const TaskQueue q(plan, work, {});
  for (int workers : {1, 2, 3, 7, 64, 500}) {
    const TaskQueue::StaticAssignment a = q.assign_static(workers);
    ASSERT_EQ(a.tasks.size(), static_cast<std::size_t>(workers));
    std::set<std::uint64_t> seen;
    double total = 0, most = 0, largest_task = 0;
    for (int w = 0; w < workers; ++w) {
      double sum = 0, previous = 1e300;
      for (std::uint64_t id : a.tasks[static_cast<std::size_t>(w)]) {
        EXPECT_TRUE(seen.insert(id).second) << "task " << id << " twice";
        EXPECT_LE(q.estimate(id), previous) << "a worker counts its costliest first";
        previous = q.estimate(id);
        sum += q.estimate(id);
        largest_task = std::max(largest_task, q.estimate(id));
      }
      EXPECT_DOUBLE_EQ(a.cost[static_cast<std::size_t>(w)], sum);
      total += sum;
      most = std::max(most, sum);
    }
    EXPECT_EQ(seen.size(), plan.num_tasks()) << workers << " workers";
    // Each task went to a worker within the capacity, or to the least loaded: no worker ends
    // above the capacity or the mean plus the largest task.
    const double capacity = (1 + TaskQueue::kStaticCapacitySlack) * std::max(total / workers, largest_task);
    EXPECT_LE(most, std::max(capacity, total / workers + largest_task) + 1e-9) << workers << " workers";
    const TaskQueue::StaticAssignment again = q.assign_static(workers);
    EXPECT_EQ(again.tasks, a.tasks) << "deterministic";
  }
}

TEST(StaticAssignment, EvenTasksGoEvenlyAndKeepWorkersOnTheirBlocks) {
  const TaskPlan plan(4, 2);
  const TaskQueue q(plan, std::vector<std::uint64_t>(64, 100), {});
  const int workers = 8;
  const TaskQueue::StaticAssignment a = q.assign_static(workers);
  auto distinct_blocks = [&](const std::vector<std::uint64_t>& tasks) {
    std::set<std::pair<std::uint32_t, std::uint32_t>> blocks;
    for (std::uint64_t id : tasks) {
      const Task t = plan.decode(id);
      for (const BlockId& b : {t.hash_block(), t.one_hop_block(), t.two_hop_block()}) blocks.insert({b.row_class, b.col_class});
    }
    return blocks.size();
  };
  std::size_t held = 0, dealt = 0;
  for (int w = 0; w < workers; ++w) {
    EXPECT_EQ(a.tasks[static_cast<std::size_t>(w)].size(), plan.num_tasks() / workers) << "worker " << w;
    held += distinct_blocks(a.tasks[static_cast<std::size_t>(w)]);
    std::vector<std::uint64_t> by_id;
    for (std::uint64_t id = static_cast<std::uint64_t>(w); id < plan.num_tasks(); id += workers) by_id.push_back(id);
    dealt += distinct_blocks(by_id);
  }
  EXPECT_LT(held, dealt) << "block preference: " << held << " blocks held in all, " << dealt << " dealt in id order";
}

TEST(StaticAssignment, SkipsFinishedTasks) {
  const TaskPlan plan(2, 1);
  const TaskQueue q(plan, std::vector<std::uint64_t>(8, 5), {}, {1, 4, 6});
  const TaskQueue::StaticAssignment a = q.assign_static(3);
  std::set<std::uint64_t> seen;
  for (const auto& list : a.tasks) seen.insert(list.begin(), list.end());
  EXPECT_EQ(seen, (std::set<std::uint64_t>{0, 2, 3, 5, 7}));
}
