// tricount-generate: writes a synthetic graph (Kronecker, uniform random, 3D grid, Kronecker
// product of small graphs) as an edge file that every tricount reader accepts (text "u v"
// lines, or bin32/bin64 pairs); for a Kronecker product also FILE.known, its exact counts.
// The graph parameters and their checks are input/generator_spec.hpp's, shared with
// tricount-partition's generator inputs (--input kronecker:26).
#include <sys/statvfs.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>  // std::in_range, used by types.hpp
#include <vector>

#include "src/cli.hpp"
#include "src/output_file.hpp"
#include "input/edge_source.hpp"
#include "input/generator_spec.hpp"
#include "input/generators.hpp"
#include "input/known_counts.hpp"
#include "input/kronecker_product.hpp"
#include "src/types.hpp"

namespace {

using namespace tricount;
namespace po = cli::po;

constexpr std::string_view kProgram = "tricount-generate";

unsigned threads_option(const po::variables_map& vm) {
  // Parsed here: boost's lexical_cast would silently turn "-1" into 2^64 - 1.
  const std::string text = vm["threads"].as<std::string>();
  std::uint64_t t = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), t);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw UsageError("--threads: '" + text + "' is not a non-negative integer");
  if (t > 4096) throw UsageError("--threads " + std::to_string(t) + " is more than 4096; use 0 for all cores");
  return static_cast<unsigned>(t);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The format the readers' auto-detection will assume for this file name.
EdgeFileKind kind_from_extension(std::string_view path) {
  if (ends_with(path, ".bin32")) return EdgeFileKind::Bin32;
  if (ends_with(path, ".bin64") || ends_with(path, ".bin")) return EdgeFileKind::Bin64;
  return EdgeFileKind::Text;
}

std::string_view kind_name(EdgeFileKind k) {
  switch (k) {
    case EdgeFileKind::Text: return "text";
    case EdgeFileKind::Bin32: return "bin32";
    case EdgeFileKind::Bin64: return "bin64";
  }
  return "?";
}

int run(int argc, char** argv) {
  po::options_description options("Options");
  // clang-format off
  options.add_options()
    ("kind", po::value<std::string>()->default_value("kronecker"),
     "graph to generate: kronecker (Graph500 R-MAT, A,B,C = 0.57,0.19,0.19, vertex ids "
     "scrambled), uniform (independent uniform endpoints), grid3d (6-neighbour 3D grid, "
     "0 triangles) or kronecker-product (of --factors; its vertex, edge and triangle counts are "
     "known in closed form: printed, and written to OUTPUT.known, which tricount-partition "
     "carries into the block file for tricount-count to check its count against)")
    ("threads", po::value<std::string>()->default_value("0"),
     "kronecker, uniform, kronecker-product: threads that compute edges (0: the cores this process may use); "
     "the file is the same for any number")
    ("output,o", po::value<std::string>()->required(),
     "file to write (required); written under a temporary name, then renamed (a device, a FIFO or "
     "/dev/stdout is written in place; a symlink is written through)")
    ("format", po::value<std::string>(),
     "text (\"u v\" per line), bin32 or bin64 (little-endian id pairs); default from the "
     "extension of --output: .bin32 -> bin32, .bin64 or .bin -> bin64, else text");
  // clang-format on
  // The generators' own parameters, as one definition gives them (input/generator_spec.hpp).
  po::options_description parameters("Graph parameters (also a generator input's NAME=VALUE: tricount-partition --input KIND:...)");
  for (const GeneratorParameter& p : generator_parameters()) {
    auto* value = po::value<std::string>();
    if (p.default_value) value->default_value(*p.default_value);
    parameters.add_options()(p.name.c_str(), value, p.help.c_str());
  }
  options.add(parameters);
  po::variables_map vm;
  if (!cli::parse(argc, argv, options, vm, "tricount-generate --output FILE [options]",
                  "Writes a deterministic synthetic graph as an edge file for tricount-partition.")) {
    return cli::kExitOk;
  }

  const std::string kind = vm["kind"].as<std::string>();
  const std::string output = vm["output"].as<std::string>();
  const auto given = [&](const char* name) { return vm.count(name) > 0 && !vm[name].defaulted(); };
  const auto only_for = [&](std::initializer_list<const char*> names, const char* kinds) {
    for (const char* name : names) {
      if (given(name)) {
        throw UsageError("--" + std::string(name) + " applies only to --kind " + kinds +
                         ", not " + kind);
      }
    }
  };

  // Output format: explicit or from the name, and the two must agree, or a later
  // "--input-format auto" would read the file as something it is not.
  if (output.empty()) throw UsageError("--output must not be empty");
  if (ends_with(output, ".gz")) {
    throw UsageError("--output: writing gzip is not supported; compress '" + output +
                     "' afterwards (the readers accept .gz)");
  }
  if (ends_with(output, ".mtx") || ends_with(output, ".mm")) {
    throw UsageError("--output: tricount-generate writes edge lists, not Matrix Market; use "
                     "another extension than '.mtx'/'.mm'");
  }
  EdgeFileKind file_kind = kind_from_extension(output);
  if (vm.count("format")) {
    const std::string f = vm["format"].as<std::string>();
    EdgeFileKind want;
    if (f == "text") want = EdgeFileKind::Text;
    else if (f == "bin32") want = EdgeFileKind::Bin32;
    else if (f == "bin64") want = EdgeFileKind::Bin64;
    else throw UsageError("--format: unknown format '" + f + "'; choose text, bin32 or bin64");
    if (want != file_kind) {
      throw UsageError("--format " + f + " does not match the name '" + output +
                       "', which readers will take as " + std::string(kind_name(file_kind)) +
                       "; name it " + (want == EdgeFileKind::Bin32 ? "*.bin32" : want == EdgeFileKind::Bin64 ? "*.bin64" : "*.txt"));
    }
    file_kind = want;
  }

  if (kind == "grid3d") only_for({"threads"}, "kronecker, uniform or kronecker-product");
  GeneratorArgs args;
  args.kind = kind;
  for (const GeneratorParameter& p : generator_parameters())
    if (given(p.name.c_str())) args.given[p.name] = vm[p.name].as<std::string>();
  Generator generator = make_generator(args, threads_option(vm));
  const std::unique_ptr<EdgeSource>& source = generator.source;
  const std::shared_ptr<const KroneckerProduct>& product = generator.product;

  output::check_writable(output, "--output");  // before generating, not after
  // A graph its file system cannot hold is refused now, not when the disk is full hours later
  // (at the least bytes an edge takes in the format: "u v\n" in text).
  if (const IndexedEdges* indexed = source->indexed(); indexed && !output::writes_in_place(output)) {
    const long double least = static_cast<long double>(indexed->edge_count()) *
                              (file_kind == EdgeFileKind::Bin32 ? 8 : file_kind == EdgeFileKind::Bin64 ? 16 : 4);
    const std::filesystem::path folder = std::filesystem::path(output).parent_path();
    struct statvfs fs {};
    if (::statvfs(folder.empty() ? "." : folder.c_str(), &fs) == 0) {
      const long double free_bytes = static_cast<long double>(fs.f_bavail) * fs.f_frsize;
      if (least > free_bytes)
        throw Error("cannot write --output '" + output + "': the graph has " + std::to_string(indexed->edge_count()) +
                    " edges, at least " + std::to_string(static_cast<unsigned long long>(least / 1e9)) + " GB as " +
                    std::string(kind_name(file_kind)) + ", and its file system has " +
                    std::to_string(static_cast<unsigned long long>(free_bytes / 1e9)) +
                    " GB free; free some space, write it elsewhere or generate a smaller graph");
    }
  }
  // FILE.known goes with a regular file only; an older one would describe another graph.
  const bool sidecar = !output::writes_in_place(output);
  const std::string known_path = known_sidecar_path(output);
  if (sidecar && product) output::check_writable(known_path, "--output");
  if (product) {
    const ProductCounts& c = product->counts();
    std::cerr << kProgram << ": " << product->description() << ": " << c.vertices << " vertices (of "
              << c.vertex_ids << " ids), " << c.edges << " edges, " << c.triangles
              << " triangles (exact, in closed form)" << std::endl;
  }
  if (sidecar) remove_known_sidecar(output);
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t edges = write_edge_file(*source, output, file_kind);
  if (product && sidecar) {
    const ProductCounts& c = product->counts();
    KnownCounts known;
    known.vertex_ids = c.vertex_ids;
    known.vertices = c.vertices;
    known.edges = c.edges;
    known.triangles = c.triangles;
    known.generator = product->description();
    write_known_sidecar(output, known);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << kProgram << ": wrote " << edges << " edges (" << source->description() << ") to '"
            << output << "' as " << kind_name(file_kind) << " in " << std::fixed
            << std::setprecision(3) << seconds << " s";
  if (product) {
    std::cerr << (sidecar ? "; the known counts to '" + known_path + "'"
                          : std::string("; no known-counts file beside a device, FIFO or stream"));
  }
  std::cerr << std::endl;
  return cli::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread starts: SIGTERM/SIGINT/SIGHUP remove the temporary output and exit.
  tricount::output::install_signal_cleanup(std::string(kProgram));
  return tricount::cli::run_main(kProgram, [&] { return run(argc, argv); });
}
