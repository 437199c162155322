#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include "worker/block_cache.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace tricount::testing {

static std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string bin_dir() { return env_or("TRICOUNT_BIN_DIR", TRICOUNT_DEFAULT_BIN_DIR); }
std::string graphs_dir() {
  std::error_code ec;
  const std::string beside = TRICOUNT_DEFAULT_GRAPHS_DIR;
  return env_or("TRICOUNT_GRAPHS_DIR", std::filesystem::is_directory(beside, ec) ? beside : TRICOUNT_FETCHED_GRAPHS_DIR);
}
std::string fetch_graphs_hint() {
  return "run scripts/fetch-graphs (downloads them into data/; --from DIR copies them from a local folder), "
         "or set TRICOUNT_GRAPHS_DIR";
}
std::string mpiexec() { return env_or("TRICOUNT_MPIEXEC", TRICOUNT_DEFAULT_MPIEXEC); }
std::string source_dir() { return env_or("TRICOUNT_SOURCE_DIR", TRICOUNT_DEFAULT_SOURCE_DIR); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  ASSERT_TRUE(out.flush()) << "cannot write " << path;
}


namespace {
// mpiexec runs that tests start must work as root (CI containers) and on fewer cores than
// ranks, unbound as scripts/mpi-env leaves them; an explicit setting in the environment wins.
const bool mpi_env_ready = [] {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  ::setenv("OMPI_MCA_hwloc_base_binding_policy", "none", 0);
  return true;
}();

// Each test process its own Open MPI session directory: the mpiexec runs of tests running
// at once raced to create the shared /tmp/ompi.HOST.UID ("mkdir ...: File exists", seen on a
// loaded 2-core machine). Removed when the process ends; an explicit setting wins.
struct MpiSessionDir {
  std::string path;
  MpiSessionDir() {
    if (std::getenv("OMPI_MCA_orte_tmpdir_base")) return;
    std::string tmpl = (std::filesystem::temp_directory_path() / "tricount-mpi-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return;  // Open MPI's own default then
    path = tmpl;
    ::setenv("OMPI_MCA_orte_tmpdir_base", path.c_str(), 1);
  }
  ~MpiSessionDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};
const MpiSessionDir mpi_session_dir;
}  // namespace

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "tricount-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}
TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds) {
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) || ::pipe(err_pipe)) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);  // own process group, so a timeout can kill mpiexec and its children
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ProcessResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  char buf[65536];
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) < 0) continue;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fds[k].fd, buf, sizeof buf);
      if (got <= 0) {
        ::close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
      } else {
        (k == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(got));
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string describe(const ProcessResult& r) {
  auto tail = [](const std::string& text) { return text.size() > 3000 ? text.substr(text.size() - 3000) : text; };
  std::string d = "exit " + std::to_string(r.exit_code) + (r.timed_out ? " (timed out)" : "") + "\n--- stdout ---\n" +
                  tail(r.out) + "\n--- stderr ---\n" + tail(r.err);
  if (r.exit_code == 127)
    d += "\n(exit 127: the program could not be started; binaries are looked for in TRICOUNT_BIN_DIR = '" + bin_dir() +
         "', mpiexec is '" + mpiexec() + "')";
  return d;
}

std::vector<std::string> mpi_command(int ranks, const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> cmd = {mpiexec(), "-np", std::to_string(ranks), "--oversubscribe", program};
  cmd.insert(cmd.end(), args.begin(), args.end());
  return cmd;
}

std::string bin_path(const std::string& program) { return bin_dir() + "/" + program; }

ProcessResult run_generate(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {bin_path("tricount-generate")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, kProgramTimeout);
}

ProcessResult run_partition(const std::string& input, const std::string& output, std::uint32_t parts,
                            const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {bin_path("tricount-partition"), "--input", input, "--output", output,
                                   "--parts", std::to_string(parts), "--quiet"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_process(argv, kProgramTimeout);
}

ProcessResult mpi_count(int ranks, const std::vector<std::string>& args) {
  return run_process(mpi_command(ranks, bin_path("tricount-count"), args), kProgramTimeout);
}

ProcessResult count_json(int ranks, const std::string& h5, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--input", h5, "--json", "-", "--threads", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return mpi_count(ranks, args);
}

std::string make_block_file(const TempDir& dir, std::uint32_t parts, const std::string& name) {
  const std::string txt = dir.file(name + ".txt");
  write_text_edges(txt, random_graph(2000, 20000, 7));
  const std::string h5 = dir.file(name);
  const ProcessResult r = run_partition(txt, h5, parts);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  return h5;
}

std::vector<std::string> temp_files(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (contains(e.path().filename().string(), ".tmp.")) found.push_back(e.path().string());
  return found;
}

EdgePairs read_text_edges(const std::string& path) {
  std::ifstream in(path);
  EdgePairs edges;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '%') continue;
    std::istringstream s(line);
    std::uint64_t a, b;
    if (s >> a >> b) edges.emplace_back(a, b);
  }
  return edges;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::stringstream s(path);
  std::string dir;
  while (std::getline(s, dir, ':'))
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

void PrintTo(const UsageCase& c, std::ostream* os) { *os << c.name; }

void expect_usage_error(const UsageCase& c) {
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_text_edges(in, complete_graph(4));
  std::vector<std::string> args;
  for (const auto& a : c.args) args.push_back(a == "IN" ? in : a == "OUT" ? dir.file("out.h5") : a);
  const std::string program = std::string("tricount-") + c.program;
  ProcessResult r;
  if (std::string(c.program) == "count") {
    r = mpi_count(1, args);
  } else {
    std::vector<std::string> argv = {bin_path(program)};
    argv.insert(argv.end(), args.begin(), args.end());
    r = run_process(argv, kProgramTimeout);
  }
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, program + ": error:")) << describe(r);
  EXPECT_TRUE(contains(r.err, c.mentions)) << "expected the message to mention '" << c.mentions << "'\n" << describe(r);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.h5")));
}

void expect_help(const ProcessResult& r, const std::vector<std::string>& options) {
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string text = r.out + r.err;
  EXPECT_TRUE(contains(text, "usage")) << text;
  for (const auto& o : options) EXPECT_TRUE(contains(text, "--" + o)) << "--help does not mention --" << o << ":\n" << text;
}

bool device_intact(const std::string& path, unsigned minor) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) return true;
  if (::geteuid() == 0 && ::unlink(path.c_str()) == 0) ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor));
  return false;
}

void plant_temp_symlinks(const std::string& name, const std::string& victim, int count) {
  long last = 0;
  std::ifstream("/proc/sys/kernel/ns_last_pid") >> last;
  for (long pid = last + 1; pid <= last + count; ++pid)
    std::filesystem::create_symlink(victim, name + ".tmp." + std::to_string(pid));
}

void write_text_edges(const std::string& path, const EdgePairs& edges) {
  std::ofstream out(path);
  for (auto [a, b] : edges) out << a << ' ' << b << '\n';
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::vector<RawEdge> to_raw(const EdgePairs& edges) {
  std::vector<RawEdge> raw;
  raw.reserve(edges.size());
  for (auto [a, b] : edges) raw.push_back({a, b});
  return raw;
}

EdgePairs complete_graph(std::uint64_t n, std::uint64_t first_id) {
  EdgePairs e;
  for (std::uint64_t a = 0; a < n; ++a)
    for (std::uint64_t b = a + 1; b < n; ++b) e.emplace_back(first_id + a, first_id + b);
  return e;
}

EdgePairs random_graph(std::uint64_t vertices, std::uint64_t edges, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, vertices - 1);
  EdgePairs e;
  for (std::uint64_t k = 0; k < edges; ++k) e.emplace_back(pick(rng), pick(rng));
  return e;
}

EdgePairs grid_2d(std::uint64_t w, std::uint64_t h) {
  EdgePairs e;
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      if (x + 1 < w) e.emplace_back(y * w + x, y * w + x + 1);
      if (y + 1 < h) e.emplace_back(y * w + x, (y + 1) * w + x);
    }
  return e;
}

EdgePairs triangular_lattice(std::uint64_t w, std::uint64_t h) {
  EdgePairs e;
  for (std::uint64_t y = 0; y < h; ++y)
    for (std::uint64_t x = 0; x < w; ++x) {
      const std::uint64_t a = y * w + x;
      if (x + 1 < w) e.emplace_back(a, a + 1);
      if (y + 1 < h) e.emplace_back(a, a + w);
      if (x + 1 < w && y + 1 < h) e.emplace_back(a, a + w + 1);
    }
  return e;
}

EdgePairs circulant(std::uint64_t n, std::uint64_t k) {
  EdgePairs e;
  for (std::uint64_t a = 0; a < n; ++a)
    for (std::uint64_t d = 1; d <= k; ++d) e.emplace_back(a, (a + d) % n);
  return e;
}

EdgePairs star(std::uint64_t leaves) {
  EdgePairs e;
  for (std::uint64_t k = 1; k <= leaves; ++k) e.emplace_back(0, k);
  return e;
}

EdgePairs mixed_graph(std::uint64_t seed) {
  EdgePairs e = random_graph(3000, 30000, seed);
  const EdgePairs k = complete_graph(150, 5000);  // degree-149 rows: the CTA path
  e.insert(e.end(), k.begin(), k.end());
  for (std::uint64_t x = 0; x < 400; ++x) e.emplace_back(5000 + x % 150, 10 + x * 7);  // links in
  const EdgePairs s = star(300);  // hub of degree 300, leaves of degree 1
  for (auto [a, b] : s) e.emplace_back(a + 20000, b + 20000);
  return e;
}

PartitionedGraph partition_graph(const EdgePairs& edges, std::uint32_t parts) {
  PartitionOptions o;
  o.parts = parts;
  return partition_edges(to_raw(edges), o);
}

std::uint64_t next_serial_base() {
  static std::uint64_t base = 1;
  const std::uint64_t b = base;
  base += 1u << 20;
  return b;
}

std::unique_ptr<CountBackend> cuda_backend(std::uint32_t cta_threshold, std::uint32_t chunk, const CudaTuning& tuning) {
  BackendOptions o;
  o.cta_degree_threshold = cta_threshold;
  o.chunk_size = chunk;
  o.cuda_tuning = tuning;
  return make_backend(BackendKind::Cuda, o);
}

count_t count_partitioned(const PartitionedGraph& graph, std::uint32_t splits, CountBackend& backend) {
  const TaskPlan plan(graph.header.parts, splits);
  // Serials unique per process and graph: a backend may keep device copies keyed by them.
  static std::uint64_t next_serial = std::uint64_t{1} << 40;
  const std::uint64_t base = next_serial;
  next_serial += std::uint64_t(graph.header.parts) * graph.header.parts;
  auto view = [&](const CsrBlock& b) {
    return make_block_view(b, base + std::uint64_t(b.id.row_class) * graph.header.parts + b.id.col_class);
  };
  count_t total = 0;
  for (std::uint64_t id = 0; id < plan.num_tasks(); ++id) {
    const Task t = plan.decode(id);
    TaskBlocks blocks{view(graph.block(t.i, t.k)), view(graph.block(t.i, t.j)), view(graph.block(t.j, t.k)), t.split,
                         splits};
    CountStats stats;
    total += backend.count(blocks, stats);
  }
  return total;
}

std::map<std::uint64_t, count_t> count_partitioned_per_vertex(const PartitionedGraph& graph, std::uint32_t splits,
                                                              CountBackend& backend) {
  const std::uint32_t n = graph.header.parts;
  std::vector<std::uint64_t> class_vertices;
  for (std::uint32_t c = 0; c < n; ++c) class_vertices.push_back(rows_in_class(graph.header.vertices, n, c));
  backend.start_per_vertex(class_vertices);
  const count_t total = count_partitioned(graph, splits, backend);
  std::map<std::uint64_t, count_t> out;
  count_t sum = 0;
  for (std::uint32_t c = 0; c < n; ++c) {
    const std::vector<count_t> counts = backend.take_vertex_counts(c);
    if (counts.size() != class_vertices[c]) throw std::runtime_error("class " + std::to_string(c) + ": wrong counter count");
    for (std::uint64_t r = 0; r < counts.size(); ++r) {
      out[graph.vertex_map[r * n + c]] = counts[r];
      sum += counts[r];
    }
  }
  if (sum != 3 * total) throw std::runtime_error("per-vertex counts sum to " + std::to_string(sum) + ", not 3 x " + std::to_string(total));
  return out;
}

count_t count_with_cpu(const EdgePairs& edges, std::uint32_t parts, std::uint32_t splits, VertexOrder order) {
  PartitionOptions options;
  options.parts = parts;
  options.order = order;
  const PartitionedGraph graph = partition_edges(to_raw(edges), options);
  BackendOptions bo;
  bo.threads = 2;
  auto backend = make_cpu_backend(bo);
  return count_partitioned(graph, splits, *backend);
}

std::uint64_t json_uint(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\":";
  const auto pos = json.find(needle);
  if (pos == std::string::npos) throw std::runtime_error("key '" + key + "' not in JSON: " + json.substr(0, 400));
  std::size_t p = pos + needle.size();
  while (p < json.size() && json[p] == ' ') ++p;
  return std::stoull(json.substr(p));
}

std::vector<double> json_numbers(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\":";
  std::vector<double> values;
  for (std::size_t pos = json.find(needle); pos != std::string::npos; pos = json.find(needle, pos + 1))
    values.push_back(std::stod(json.substr(pos + needle.size())));
  return values;
}

namespace {

// Where a contiguous dataset's elements start in the file.
haddr_t dataset_offset(const std::string& path, const std::string& dataset) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error("cannot open " + path);
  const hid_t set = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  const haddr_t at = set >= 0 ? H5Dget_offset(set) : HADDR_UNDEF;
  if (set >= 0) H5Dclose(set);
  H5Fclose(file);
  if (at == HADDR_UNDEF) throw std::runtime_error(path + ": " + dataset + " is not contiguous");
  return at;
}

}  // namespace

void corrupt_block_neighbors(const std::string& path, const BlockId& id) {
  const std::string group = "/blocks/P_" + std::to_string(id.row_class) + "_" + std::to_string(id.col_class);
  if (BlockFileReader(path).is_packed(id)) {  // one bit of the first packed word: the checksum covers them
    const haddr_t at = dataset_offset(path, group + "/words");
    const int fd = ::open(path.c_str(), O_RDWR);
    if (fd < 0) throw std::runtime_error("cannot open " + path + " for writing");
    std::uint32_t word = 0;
    bool done = ::pread(fd, &word, sizeof word, static_cast<off_t>(at)) == ssize_t(sizeof word);
    word ^= 1u << 7;
    done = done && ::pwrite(fd, &word, sizeof word, static_cast<off_t>(at)) == ssize_t(sizeof word);
    ::close(fd);
    if (!done) throw std::runtime_error("cannot rewrite " + group + "/words of " + path);
    return;
  }
  // 1. A neighbour one above its row's previous one, which can go one down.
  std::uint64_t entry = 0;
  vid_t lowered = 0;
  {
    const CsrBlock b = BlockFileReader(path).read_block(id);
    for (std::uint64_t r = 0; r < b.rows && entry == 0; ++r)
      for (eoff_t x = b.offsets[r] + 1; x < b.offsets[r + 1] && entry == 0; ++x)
        if (b.neighbors[x] > b.neighbors[x - 1] + 1) entry = x, lowered = b.neighbors[x] - 1;
  }
  if (entry == 0) throw std::runtime_error(path + ": block " + block_name(id) + " has no neighbour to lower");
  // 2. Where the block's neighbours lie in the file (contiguous, as tricount-partition writes them).
  const std::string dataset = "/blocks/P_" + std::to_string(id.row_class) + "_" + std::to_string(id.col_class) + "/neighbors";
  const haddr_t at = dataset_offset(path, dataset);
  // 3. The new value over the old.
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) throw std::runtime_error("cannot open " + path + " for writing");
  const bool written =
      ::pwrite(fd, &lowered, sizeof lowered, static_cast<off_t>(at + entry * sizeof(vid_t))) == ssize_t(sizeof lowered);
  ::close(fd);
  if (!written) throw std::runtime_error("cannot rewrite " + dataset + " of " + path);
}

std::string table_rows(const std::string& text) {
  std::string rows;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    if (text[at] != '#') rows += text.substr(at, end - at + 1);
    at = end + 1;
  }
  return rows;
}

namespace {
// Rewrites entry v of a contiguous 1-D dataset of T in place with `change` (a test's damage).
template <class T, class Change>
void rewrite_entry(const std::string& path, const std::string& dataset, std::uint64_t v, Change change) {
  const off_t at = static_cast<off_t>(dataset_offset(path, dataset) + v * sizeof(T));
  const int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) throw std::runtime_error("cannot open " + path + " for writing");
  T value{};
  bool done = ::pread(fd, &value, sizeof value, at) == ssize_t(sizeof value);
  value = change(value);
  done = done && ::pwrite(fd, &value, sizeof value, at) == ssize_t(sizeof value);
  ::close(fd);
  if (!done) throw std::runtime_error("cannot rewrite entry " + std::to_string(v) + " of " + dataset + " in " + path);
}
}  // namespace

void corrupt_stored_degree(const std::string& path, std::uint64_t v) {
  rewrite_entry<std::uint32_t>(path, "/degrees", v, [](std::uint32_t d) { return d + 1; });
}

void corrupt_vertex_map_entry(const std::string& path, std::uint64_t v) {
  // One byte flipped: still an id, but another one.
  rewrite_entry<std::uint64_t>(path, "/vertex_map", v, [](std::uint64_t id) { return id ^ (std::uint64_t{0xFF} << 24); });
}

namespace {
// The block file at `path` opened for writing, closed when it goes.
class WritableFile {
 public:
  explicit WritableFile(const std::string& path) : id_(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)) {
    if (id_ < 0) throw std::runtime_error("cannot open " + path + " for writing");
  }
  ~WritableFile() { H5Fclose(id_); }
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;
  hid_t get() const { return id_; }

 private:
  hid_t id_;
};
}  // namespace

void swap_block_groups(const std::string& path, const BlockId& a, const BlockId& b) {
  const WritableFile f(path);
  const std::string first = block_group_path(a), second = block_group_path(b), aside = "/blocks/swap";
  if (H5Lmove(f.get(), first.c_str(), f.get(), aside.c_str(), H5P_DEFAULT, H5P_DEFAULT) < 0 ||
      H5Lmove(f.get(), second.c_str(), f.get(), first.c_str(), H5P_DEFAULT, H5P_DEFAULT) < 0 ||
      H5Lmove(f.get(), aside.c_str(), f.get(), second.c_str(), H5P_DEFAULT, H5P_DEFAULT) < 0)
    throw std::runtime_error("cannot swap " + first + " and " + second + " in " + path);
}

void make_attribute_an_array(const std::string& path, const std::string& object, const char* name, std::uint64_t count) {
  const WritableFile f(path);
  const std::string what = object + " attribute '" + name + "' of " + path;
  const hid_t obj = H5Oopen(f.get(), object.c_str(), H5P_DEFAULT);
  const hid_t attr = obj >= 0 ? H5Aopen(obj, name, H5P_DEFAULT) : -1;
  const hid_t type = attr >= 0 ? H5Aget_type(attr) : -1;
  const std::size_t width = type >= 0 ? H5Tget_size(type) : 0;
  std::vector<char> values(width * std::max<std::uint64_t>(count, 1));  // room for the one value read
  bool done = width > 0 && H5Aread(attr, type, values.data()) >= 0;
  for (std::uint64_t k = 1; k < count; ++k) std::copy_n(values.begin(), width, values.begin() + k * width);
  if (attr >= 0) H5Aclose(attr);
  done = done && H5Adelete(obj, name) >= 0;
  const hsize_t dims[1] = {count};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t array = done ? H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
  done = array >= 0 && H5Awrite(array, type, values.data()) >= 0;
  if (array >= 0) H5Aclose(array);
  H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  if (obj >= 0) H5Oclose(obj);
  if (!done) throw std::runtime_error("cannot make " + what + " an array");
}

void write_block_file_without_degrees(const PartitionedGraph& graph, const std::string& output) {
  BlockFileWriter writer(output, graph.header);
  writer.write_vertex_map(graph.vertex_map);
  for (const CsrBlock& b : graph.blocks) writer.write_block(b);
  writer.write_task_work(estimate_task_work(graph.blocks, graph.header.parts));
  writer.commit();
}

}  // namespace tricount::testing
