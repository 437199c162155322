#include "count/count_report.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <type_traits>

namespace tricount {
namespace {

// One rank's statistics as they travel to rank 0 (MPI_Gather of 64-bit words: counts as
// they are, seconds as the bits of their double) and as they appear in the report's
// per_rank entries and timers. One row per field drives packing, unpacking and the JSON.
enum class Group { Rank, LoadStep, StartStep, SetupStep, BackendStep };  // where in a per_rank entry
enum class Over { None, Workers, Ranks };  // a named timer (min / mean / max) over these ranks, or none

struct RankStatField {
  const char* name;  // JSON key: in the per_rank entry, or inside its group's object
  Group group;
  bool integer;      // a count (a JSON integer) or seconds (a JSON number)
  std::uint64_t (*pack)(const RankStats&);
  void (*unpack)(RankStats&, std::uint64_t);
  Over timer = Over::None;
  const char* timer_name = nullptr;  // the key in `timers` (in its group's object for a step)
};

// The per_rank object holding each group's fields, and the timers object of the same fields.
const char* group_key(Group g) {
  switch (g) {
    case Group::LoadStep: return "load_steps_seconds";
    case Group::StartStep: return "start_steps_seconds";
    case Group::SetupStep: return "setup_steps_seconds";
    case Group::BackendStep: return "backend_steps_seconds";
    case Group::Rank: break;
  }
  return "";
}
const char* group_timer_key(Group g) {
  switch (g) {
    case Group::StartStep: return "start_steps";
    case Group::SetupStep: return "setup_steps";
    case Group::BackendStep: return "backend_steps";
    default: break;
  }
  return "";
}

template <class T>
constexpr std::uint64_t to_word(T value) {
  if constexpr (std::is_integral_v<T>) return value;
  else return std::bit_cast<std::uint64_t>(value);
}
template <class T>
constexpr T from_word(std::uint64_t word) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(word);
  else return std::bit_cast<T>(word);
}

template <auto Member>
constexpr RankStatField worker_stat(const char* name, const char* timer = nullptr) {
  using T = std::remove_cvref_t<decltype(WorkerStats{}.*Member)>;
  return {name, Group::Rank, std::is_integral_v<T>, [](const RankStats& r) { return to_word(r.stats.*Member); },
          [](RankStats& r, std::uint64_t word) { r.stats.*Member = from_word<T>(word); }, timer ? Over::Workers : Over::None,
          timer};
}

template <double BlockReadTimes::*Member>
constexpr RankStatField load_step(const char* name) {
  return {name, Group::LoadStep, false, [](const RankStats& r) { return to_word(r.stats.load_steps.*Member); },
          [](RankStats& r, std::uint64_t word) { r.stats.load_steps.*Member = from_word<double>(word); }};
}

// A SetupTimes field: in `group` (Rank: "<name>_seconds" in the entry), a timer over `over`.
template <double SetupTimes::*Member>
constexpr RankStatField setup_time(const char* name, Group group, Over over, const char* timer) {
  return {name, group, false, [](const RankStats& r) { return to_word(r.setup.*Member); },
          [](RankStats& r, std::uint64_t word) { r.setup.*Member = from_word<double>(word); }, over, timer};
}

template <double BackendStartTimes::*Member>
constexpr RankStatField backend_step(const char* name) {
  return {name, Group::BackendStep, false, [](const RankStats& r) { return to_word(r.setup.backend_steps.*Member); },
          [](RankStats& r, std::uint64_t word) { r.setup.backend_steps.*Member = from_word<double>(word); }, Over::Workers,
          name};
}

constexpr RankStatField kRankStatFields[] = {
    {"node", Group::Rank, true, [](const RankStats& r) { return static_cast<std::uint64_t>(r.node); },
     [](RankStats& r, std::uint64_t word) { r.node = static_cast<int>(word); }},
    worker_stat<&WorkerStats::tasks>("tasks"),
    worker_stat<&WorkerStats::triangles>("triangles"),
    worker_stat<&WorkerStats::load_seconds>("load_seconds"),
    worker_stat<&WorkerStats::transfer_seconds>("transfer_seconds"),
    worker_stat<&WorkerStats::bytes_transferred>("bytes_transferred"),
    worker_stat<&WorkerStats::count_seconds>("count_seconds"),
    worker_stat<&WorkerStats::idle_seconds>("idle_seconds"),
    worker_stat<&WorkerStats::busy_seconds>("busy_seconds"),
    worker_stat<&WorkerStats::bytes_loaded>("bytes_loaded"),
    worker_stat<&WorkerStats::blocks_checked>("blocks_checked"),
    worker_stat<&WorkerStats::bytes_checked>("bytes_checked"),
    worker_stat<&WorkerStats::check_seconds>("check_seconds"),
    worker_stat<&WorkerStats::load_phase_seconds>("load_phase_seconds"),
    worker_stat<&WorkerStats::count_phase_seconds>("count_phase_seconds"),
    worker_stat<&WorkerStats::resident_bytes>("resident_bytes"),
    worker_stat<&WorkerStats::blocks_received>("blocks_received"),
    worker_stat<&WorkerStats::bytes_received>("bytes_received"),
    worker_stat<&WorkerStats::blocks_sent>("blocks_sent"),
    worker_stat<&WorkerStats::bytes_sent>("bytes_sent"),
    worker_stat<&WorkerStats::forward_seconds>("forward_seconds"),
    load_step<&BlockReadTimes::metadata>("metadata"),
    load_step<&BlockReadTimes::read>("read"),
    load_step<&BlockReadTimes::validate>("validate"),
    load_step<&BlockReadTimes::checksum>("checksum"),
    load_step<&BlockReadTimes::decode>("decode"),
    worker_stat<&WorkerStats::first_task_seconds>("first_task_seconds", "first_task"),
    // Before the report's clock (tricount-count's main), and its setup, on every rank.
    setup_time<&SetupTimes::process_start>("process_start_seconds", Group::Rank, Over::Ranks, "process_start"),
    setup_time<&SetupTimes::before_main>("before_main", Group::StartStep, Over::Ranks, "before_main"),
    setup_time<&SetupTimes::mpi_init>("mpi_init", Group::StartStep, Over::Ranks, "mpi_init"),
    setup_time<&SetupTimes::launch_checks>("launch_checks", Group::StartStep, Over::Ranks, "launch_checks"),
    setup_time<&SetupTimes::prepare_input>("prepare_input", Group::StartStep, Over::Ranks, "prepare_input"),
    setup_time<&SetupTimes::setup>("setup_seconds", Group::Rank, Over::Ranks, "setup"),
    setup_time<&SetupTimes::worker_comm>("worker_comm", Group::SetupStep, Over::Ranks, "worker_comm"),
    setup_time<&SetupTimes::check_input>("check_input", Group::SetupStep, Over::Ranks, "check_input"),
    setup_time<&SetupTimes::share_identity>("share_identity", Group::SetupStep, Over::Ranks, "share_identity"),
    setup_time<&SetupTimes::open_file>("open_file", Group::SetupStep, Over::Workers, "open_file"),
    setup_time<&SetupTimes::identity_check>("identity_check", Group::SetupStep, Over::Workers, "identity_check"),
    setup_time<&SetupTimes::backend_wait>("backend_wait", Group::SetupStep, Over::Workers, "backend_wait"),
    setup_time<&SetupTimes::node_window>("node_window", Group::SetupStep, Over::Ranks, "node_window"),
    setup_time<&SetupTimes::share_backend>("share_backend", Group::SetupStep, Over::Ranks, "share_backend"),
    // The backend's creation, on its own thread during steps 0 to 3.
    setup_time<&SetupTimes::backend>("backend_seconds", Group::Rank, Over::Workers, "backend"),
    backend_step<&BackendStartTimes::device>("device"),
    backend_step<&BackendStartTimes::memory>("memory"),
    backend_step<&BackendStartTimes::kernels>("kernels"),
    setup_time<&SetupTimes::teardown>("teardown_seconds", Group::Rank, Over::Ranks, "teardown"),
};
constexpr int kStatWords = 1 + static_cast<int>(std::size(kRankStatFields));  // the worker flag, then the fields

std::vector<std::uint64_t> pack(const RankStats& r) {
  std::vector<std::uint64_t> words = {r.worker ? 1u : 0u};
  for (const RankStatField& f : kRankStatFields) words.push_back(f.pack(r));
  return words;
}

RankStats unpack(int rank, const std::uint64_t* words) {
  RankStats r;
  r.rank = rank;
  r.worker = words[0] != 0;
  for (std::size_t k = 0; k < std::size(kRankStatFields); ++k) kRankStatFields[k].unpack(r, words[1 + k]);
  return r;
}

JsonObject min_mean_max(const std::vector<RankStats>& ranks, double (*field)(const WorkerStats&)) {
  double lo = 0, hi = 0, sum = 0;
  int n = 0;
  for (const RankStats& r : ranks) {
    if (!r.worker) continue;
    const double v = field(r.stats);
    lo = n ? std::min(lo, v) : v;
    hi = n ? std::max(hi, v) : v;
    sum += v;
    ++n;
  }
  JsonObject o;
  o.add("min", lo).add("mean", n ? sum / n : 0.0).add("max", hi);
  return o;
}

// A field's named timer: min / mean / max over the workers, or over every rank.
JsonObject min_mean_max(const std::vector<RankStats>& ranks, const RankStatField& f) {
  double lo = 0, hi = 0, sum = 0;
  int n = 0;
  for (const RankStats& r : ranks) {
    if (f.timer == Over::Workers && !r.worker) continue;
    const std::uint64_t word = f.pack(r);
    const double v = f.integer ? static_cast<double>(word) : from_word<double>(word);
    lo = n ? std::min(lo, v) : v;
    hi = n ? std::max(hi, v) : v;
    sum += v;
    ++n;
  }
  JsonObject o;
  o.add("min", lo).add("mean", n ? sum / n : 0.0).add("max", hi);
  return o;
}

double max_of(const std::vector<RankStats>& ranks, double (*field)(const WorkerStats&)) {
  double hi = 0;
  for (const RankStats& r : ranks)
    if (r.worker) hi = std::max(hi, field(r.stats));
  return hi;
}

double f_load(const WorkerStats& s) { return s.load_seconds; }
double f_check(const WorkerStats& s) { return s.check_seconds; }
double f_transfer(const WorkerStats& s) { return s.transfer_seconds; }
double f_count(const WorkerStats& s) { return s.count_seconds; }
double f_idle(const WorkerStats& s) { return s.idle_seconds; }
double f_busy(const WorkerStats& s) { return s.busy_seconds; }
double f_tasks(const WorkerStats& s) { return static_cast<double>(s.tasks); }
double f_load_phase(const WorkerStats& s) { return s.load_phase_seconds; }
double f_count_phase(const WorkerStats& s) { return s.count_phase_seconds; }

}  // namespace

std::vector<RankStats> gather_rank_stats(MPI_Comm comm, const RankStats& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<std::uint64_t> packed = pack(mine);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size) * kStatWords);
  MPI_Gather(packed.data(), kStatWords, MPI_UINT64_T, all.data(), kStatWords, MPI_UINT64_T, 0, comm);
  std::vector<RankStats> ranks;
  if (rank != 0) return ranks;
  for (int r = 0; r < size; ++r) ranks.push_back(unpack(r, all.data() + std::size_t(r) * kStatWords));
  return ranks;
}

double CountResult::imbalance() const {
  double lo = 0, hi = 0;
  bool any = false;
  for (const RankStats& r : per_rank) {
    if (!r.worker) continue;
    lo = any ? std::min(lo, r.stats.busy_seconds) : r.stats.busy_seconds;
    hi = any ? std::max(hi, r.stats.busy_seconds) : r.stats.busy_seconds;
    any = true;
  }
  return any && lo > 0 ? hi / lo : 0.0;
}

JsonObject CountResult::to_json() const {
  JsonObject seconds;
  seconds.add("setup", setup_seconds)
      .add("load", max_of(per_rank, f_load))
      .add("transfer", max_of(per_rank, f_transfer))
      .add("count", max_of(per_rank, f_count))
      .add("schedule", schedule_seconds);
  // Only the static schedule has a load phase; the dynamic one loads while it counts.
  if (schedule == "static") seconds.add("load_phase", load_phase_seconds);
  else seconds.add_raw("load_phase", "null");
  seconds.add("count_phase", count_phase_seconds).add("total", total_seconds);
  // --per-vertex: the whole step after counting, and its writer's share (which overlaps it).
  if (per_vertex_output) {
    const PerVertexSteps& s = per_vertex_output->steps;
    JsonObject steps;  // rank 0's view of the step; degree_read ran on the workers while they counted
    steps.add("degree_read", s.degree_read).add("degrees", s.degrees).add("early_columns", s.early_columns)
        .add("ids", s.ids).add("counters", s.counters).add("reduce", s.reduce).add("rows", s.rows).add("queue", s.queue).add("finish", s.finish)
        .add("early_columns_written", s.early_columns_written);
    seconds.add("per_vertex", per_vertex_seconds).add("per_vertex_write", per_vertex_output->write_seconds)
        .add("per_vertex_steps", steps);
  } else {
    seconds.add_raw("per_vertex", "null").add_raw("per_vertex_write", "null").add_raw("per_vertex_steps", "null");
  }
  // --per-edge: the same for its table.
  if (per_edge_output) {
    const PerEdgeSteps& s = per_edge_output->steps;
    JsonObject steps;  // rank 0's view of the step
    steps.add("blocks", s.blocks).add("reduce", s.reduce).add("rows", s.rows).add("queue", s.queue).add("finish", s.finish);
    seconds.add("per_edge", per_edge_seconds).add("per_edge_write", per_edge_output->write_seconds).add("per_edge_steps", steps);
  } else {
    seconds.add_raw("per_edge", "null").add_raw("per_edge_write", "null").add_raw("per_edge_steps", "null");
  }
  // Rank 0's process start to the report's clock: what lies before `total` (the launcher's
  // own start-up before this process existed is not in it).
  seconds.add("process_start", per_rank.empty() ? 0.0 : per_rank.front().setup.process_start);
  JsonObject timers;
  timers.add("load", min_mean_max(per_rank, f_load))
      .add("check", min_mean_max(per_rank, f_check))
      .add("transfer", min_mean_max(per_rank, f_transfer))
      .add("count", min_mean_max(per_rank, f_count))
      .add("idle", min_mean_max(per_rank, f_idle))
      .add("busy", min_mean_max(per_rank, f_busy))
      .add("tasks", min_mean_max(per_rank, f_tasks));
  if (schedule == "static") timers.add("load_phase", min_mean_max(per_rank, f_load_phase));
  else timers.add_raw("load_phase", "null");
  timers.add("count_phase", min_mean_max(per_rank, f_count_phase));
  // The named timers of the table: the rank's own, then each group's in an object.
  for (const RankStatField& f : kRankStatFields)
    if (f.timer != Over::None && f.group == Group::Rank) timers.add(f.timer_name, min_mean_max(per_rank, f));
  for (Group g : {Group::StartStep, Group::SetupStep, Group::BackendStep}) {
    JsonObject steps;
    for (const RankStatField& f : kRankStatFields)
      if (f.timer != Over::None && f.group == g) steps.add(f.timer_name, min_mean_max(per_rank, f));
    timers.add(group_timer_key(g), steps);
  }
  std::vector<JsonObject> ranks_json;
  for (const RankStats& r : per_rank) {
    JsonObject o;
    o.add("rank", r.rank).add("role", r.worker ? (ranks == 1 ? "scheduler+worker" : "worker") : "scheduler");
    // The rank's own fields in table order, then each group's object (load steps first).
    std::vector<std::pair<Group, JsonObject>> groups;
    auto group = [&](Group g) -> JsonObject& {
      for (auto& [k, obj] : groups)
        if (k == g) return obj;
      return groups.emplace_back(g, JsonObject{}).second;
    };
    for (const RankStatField& f : kRankStatFields) {
      const std::uint64_t word = f.pack(r);
      JsonObject& into = f.group == Group::Rank ? o : group(f.group);
      if (f.integer) into.add(f.name, word);
      else into.add(f.name, from_word<double>(word));
    }
    for (const auto& [g, obj] : groups) o.add(group_key(g), obj);
    ranks_json.push_back(o);
  }
  // Per node, its ranks' sums: bytes read from the file, received and sent over MPI (between
  // nodes and within one), and uploaded to the devices.
  std::vector<JsonObject> nodes_json;
  for (int node = 0; node < nodes; ++node) {
    std::vector<int> ranks_of;
    std::uint64_t read = 0, received = 0, sent = 0, uploaded = 0;
    for (const RankStats& r : per_rank) {
      if (r.node != node) continue;
      ranks_of.push_back(r.rank);
      read += r.stats.bytes_loaded, received += r.stats.bytes_received, sent += r.stats.bytes_sent;
      uploaded += r.stats.bytes_transferred;
    }
    std::string list = "[";
    for (std::size_t k = 0; k < ranks_of.size(); ++k) list += (k ? "," : "") + std::to_string(ranks_of[k]);
    JsonObject o;
    o.add("node", node).add_raw("ranks", list + "]").add("bytes_loaded", read).add("bytes_received", received)
        .add("bytes_sent", sent).add("bytes_transferred", uploaded);
    nodes_json.push_back(o);
  }
  const double count_s = max_of(per_rank, f_count);
  JsonObject j;
  j.add("input", input)
      .add("source", header.source_file)
      .add("triangles", triangles)
      .add("vertices", header.vertices)
      .add("edges", header.edges)
      .add("parts", header.parts)
      .add("count_parts", count_parts)
      .add("workload_splits", splits)
      .add("scheduling", schedule)
      .add("tasks", tasks)
      .add("ranks", ranks)
      .add("workers", workers)
      .add("nodes", nodes);
  if (ranks_per_node > 0) j.add("ranks_per_node", ranks_per_node);
  else j.add_raw("ranks_per_node", "null");
  j.add("load_path", load_path);
  j.add("backend", backend)
      .add("device", device)
      .add("ordering", header.ordering)
      .add("seconds", seconds)
      .add("teps", count_s > 0 ? static_cast<double>(header.edges) / count_s : 0.0)
      .add("imbalance", imbalance())
      .add("resumed_tasks", resumed_tasks);
  if (header.known_triangles) j.add("known_triangles", *header.known_triangles);
  if (per_vertex) per_vertex->add_to(j);
  if (per_vertex_output)
    j.add("per_vertex_bytes", per_vertex_output->write_bytes)
        .add("per_vertex_degrees", std::string(per_vertex_output->steps.stored_degrees ? "file" : "blocks"));
  if (per_edge) per_edge->add_to(j);
  if (per_edge_output) j.add("per_edge_bytes", per_edge_output->write_bytes);
  j.add("timers", timers)
      .add("per_rank", ranks_json)
      .add("per_node", nodes_json);
  return j;
}

std::string CountResult::summary() const {
  // "1 rank", "2 ranks": the line is read by people.
  auto count_of = [](std::uint64_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  };
  std::string tasks_text = count_of(tasks, "task");
  if (resumed_tasks > 0) tasks_text += " (" + std::to_string(resumed_tasks) + " resumed from the journal)";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%llu triangles | %llu vertices, %llu edges | %s, %s, %s | %s (%s, %s: %s) | "
                "%s schedule | load %.3f s, count %.3f s, total %.3f s",
                static_cast<unsigned long long>(triangles), static_cast<unsigned long long>(header.vertices),
                static_cast<unsigned long long>(header.edges), count_of(header.parts, "part").c_str(),
                count_of(splits, "split").c_str(), tasks_text.c_str(), count_of(static_cast<std::uint64_t>(ranks), "rank").c_str(),
                count_of(static_cast<std::uint64_t>(workers), "worker").c_str(), backend.c_str(), device.c_str(), schedule.c_str(),
                max_of(per_rank, f_load), max_of(per_rank, f_count), total_seconds);
  std::string line = buf;
  if (count_parts != header.parts) {
    const std::size_t at = line.find(count_of(header.parts, "part"));
    line.insert(at + count_of(header.parts, "part").size(), " counted as " + std::to_string(count_parts));
  }
  if (schedule == "static") {
    std::snprintf(buf, sizeof buf, " | load phase %.3f s, count phase %.3f s", load_phase_seconds, count_phase_seconds);
    line += buf;
  }
  if (header.known_triangles)
    line += *header.known_triangles == triangles ? " | matches the known count"
                                                 : " | DIFFERS FROM THE KNOWN COUNT " + std::to_string(*header.known_triangles);
  // A table's step, its bytes and the writer's speed (only for a table that was written).
  const auto table_timing = [&](const char* what, double step, std::uint64_t bytes, double write) {
    const double mb = static_cast<double>(bytes) / 1e6;
    std::snprintf(buf, sizeof buf, " | %s %.3f s (table %.1f MB written in %.3f s, %.0f MB/s)", what, step, mb, write,
                  write > 0 ? mb / write : 0.0);
    line += buf;
  };
  if (per_vertex_output && per_vertex_output->writer)
    table_timing("per-vertex", per_vertex_seconds, per_vertex_output->write_bytes, per_vertex_output->write_seconds);
  if (per_edge_output && per_edge_output->writer)
    table_timing("per-edge", per_edge_seconds, per_edge_output->write_bytes, per_edge_output->write_seconds);
  if (per_vertex) line += " | " + per_vertex->summary();
  if (per_edge) line += " | " + per_edge->summary();
  return line;
}

}  // namespace tricount
