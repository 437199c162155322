// The generators' parameters and their checks, once for tricount-generate's options and for
// generator inputs (input/generator_spec.hpp).
#include "input/generator_spec.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>
#include <utility>  // std::in_range, used by types.hpp

#include "input/generators.hpp"
#include "input/kronecker_product.hpp"
#include "input/webgraph.hpp"
#include "src/types.hpp"

namespace tricount {
namespace {

const std::string kKronecker = "kronecker", kUniform = "uniform", kGrid3d = "grid3d", kProduct = "kronecker-product";

// How messages name a parameter: tricount-generate's option, or a name in a generator input.
class Names {
 public:
  explicit Names(const GeneratorArgs& args)
      : prefix_(args.input.empty() ? "" : "--input '" + printable(args.input) + "': "), option_(args.input.empty()) {}
  // "--scale" or "--input 'kronecker:x': scale"
  std::string operator()(std::string_view name) const { return prefix_ + bare(name); }
  // "--scale", or "scale" inside a message that named the input already.
  std::string bare(std::string_view name) const { return (option_ ? "--" : "") + std::string(name); }
  // "--kind kronecker or uniform" or "kronecker or uniform"
  std::string kinds(const std::string& list) const { return (option_ ? "--kind " : "") + list; }
  const std::string& prefix() const { return prefix_; }

 private:
  std::string prefix_;
  bool option_;
};

std::string or_list(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t k = 0; k < items.size(); ++k) s += (k == 0 ? "" : k + 1 == items.size() ? " or " : ", ") + items[k];
  return s;
}

const GeneratorParameter& parameter(std::string_view name) {
  for (const GeneratorParameter& p : generator_parameters())
    if (p.name == name) return p;
  throw Error("generator parameter '" + std::string(name) + "' is not defined");
}

// The parameters' values: as given, else their defaults; numbers checked and named.
class Values {
 public:
  explicit Values(const GeneratorArgs& args) : args_(args), names_(args) {}

  bool given(std::string_view name) const { return args_.given.count(std::string(name)) > 0; }
  std::string text(std::string_view name) const {
    const auto it = args_.given.find(std::string(name));
    if (it != args_.given.end()) return it->second;
    return parameter(name).default_value.value_or("");
  }
  // Numbers are parsed here: boost's lexical_cast would silently turn "-1" into 2^64 - 1.
  std::uint64_t u64(std::string_view name) const {
    const std::string t = text(name);
    std::uint64_t value = 0;
    const char* const end = t.data() + t.size();
    const auto [ptr, ec] = std::from_chars(t.data(), end, value);
    if (t.empty() || ec == std::errc::invalid_argument || ptr != end)
      throw UsageError(names_(name) + ": '" + printable(t) + "' is not a non-negative integer");
    if (ec == std::errc::result_out_of_range) throw UsageError(names_(name) + ": " + t + " does not fit in 64 bits");
    return value;
  }
  std::uint64_t positive(std::string_view name) const {
    const std::uint64_t v = u64(name);
    if (v == 0) throw UsageError(names_(name) + " must be at least 1");
    return v;
  }
  // Every given parameter must apply to the kind.
  void check_kind() const {
    for (const auto& [name, value] : args_.given) {
      const GeneratorParameter& p = parameter(name);
      if (std::find(p.kinds.begin(), p.kinds.end(), args_.kind) == p.kinds.end())
        throw UsageError(names_(name) + " applies only to " + names_.kinds(or_list(p.kinds)) + ", not " + args_.kind);
    }
  }

 private:
  const GeneratorArgs& args_;
  Names names_;
};

}  // namespace

const std::vector<std::string>& generator_kinds() {
  static const std::vector<std::string> kinds = {kKronecker, kUniform, kGrid3d, kProduct};
  return kinds;
}

const std::vector<GeneratorParameter>& generator_parameters() {
  static const std::vector<GeneratorParameter> parameters = {
      {"scale", {kKronecker, kUniform}, "16", "kronecker, uniform: 2^scale vertices (kronecker: 1..62)"},
      {"edge-factor", {kKronecker, kUniform}, "16",
       "kronecker, uniform: edge-factor * 2^scale edges (directed, before removing duplicates and self-loops)"},
      {"seed", {kKronecker, kUniform}, "1", "kronecker, uniform: random seed; the same seed gives the same file everywhere"},
      {"vertices", {kUniform}, std::nullopt, "uniform: number of vertices (overrides 2^scale)"},
      {"edges", {kUniform}, std::nullopt, "uniform: number of edges (overrides edge-factor * vertices)"},
      {"grid-side", {kGrid3d}, std::nullopt, "grid3d: side S of an S x S x S grid (3 S^3 - 3 S^2 edges)"},
      {"nx", {kGrid3d}, std::nullopt, "grid3d: grid size in x (default 16)"},
      {"ny", {kGrid3d}, std::nullopt, "grid3d: grid size in y (default 16)"},
      {"nz", {kGrid3d}, std::nullopt, "grid3d: grid size in z (default 16)"},
      {"factors", {kProduct}, std::nullopt,
       std::string("kronecker-product: the factors, A = A1 x A2 x ... (ids: the first factor's most significant; each "
                   "undirected edge of A is written once, self-loops not at all; a factor with neither a triangle nor a "
                   "self-loop makes 0 triangles); ") +
           kFactorSyntax},
  };
  return parameters;
}

Generator make_generator(const GeneratorArgs& args, unsigned threads) {
  const Names names(args);
  const Values values(args);
  const std::string& kind = args.kind;
  if (std::find(generator_kinds().begin(), generator_kinds().end(), kind) == generator_kinds().end())
    throw UsageError(names.prefix() + (args.input.empty() ? "--kind: " : "") + "unknown kind '" + printable(kind) +
                     "'; choose " + or_list(generator_kinds()));
  values.check_kind();
  Generator g;
  if (kind == kKronecker) {
    KroneckerSpec spec;
    const std::uint64_t scale = values.positive("scale");
    if (scale > 62) throw UsageError(names("scale") + " must be at most 62 for kronecker");
    spec.scale = static_cast<unsigned>(scale);
    spec.edge_factor = values.positive("edge-factor");
    if (spec.edge_factor > (UINT64_MAX >> spec.scale))
      throw UsageError(names.prefix() + names.bare("edge-factor") + " * 2^scale does not fit in 64 bits");
    spec.seed = values.u64("seed");
    spec.threads = threads;
    g.source = make_kronecker_source(spec);
    g.spec = kind + ":scale=" + std::to_string(spec.scale) + ",edge-factor=" + std::to_string(spec.edge_factor) +
             ",seed=" + std::to_string(spec.seed);
  } else if (kind == kUniform) {
    UniformSpec spec;
    if (values.given("vertices")) {
      spec.vertices = values.positive("vertices");
    } else {
      const std::uint64_t scale = values.positive("scale");
      if (scale > 63) throw UsageError(names("scale") + " must be at most 63");
      spec.vertices = std::uint64_t{1} << scale;
    }
    if (values.given("edges")) {
      spec.edges = values.u64("edges");
    } else {
      const std::uint64_t ef = values.positive("edge-factor");
      if (__builtin_mul_overflow(ef, spec.vertices, &spec.edges))
        throw UsageError(names.prefix() + names.bare("edge-factor") + " * vertices does not fit in 64 bits");
    }
    spec.seed = values.u64("seed");
    spec.threads = threads;
    g.source = make_uniform_source(spec);
    g.spec = kind + ":vertices=" + std::to_string(spec.vertices) + ",edges=" + std::to_string(spec.edges) +
             ",seed=" + std::to_string(spec.seed);
  } else if (kind == kGrid3d) {
    Grid3dSpec spec;
    if (values.given("grid-side")) {
      if (values.given("nx") || values.given("ny") || values.given("nz"))
        throw UsageError(names.prefix() + "use either " + names.bare("grid-side") + " or " + names.bare("nx") + "/" +
                         names.bare("ny") + "/" + names.bare("nz") + ", not both");
      spec.nx = spec.ny = spec.nz = values.positive("grid-side");
    } else {
      if (values.given("nx")) spec.nx = values.positive("nx");
      if (values.given("ny")) spec.ny = values.positive("ny");
      if (values.given("nz")) spec.nz = values.positive("nz");
    }
    g.source = make_grid3d_source(spec);
    g.spec = kind + ":nx=" + std::to_string(spec.nx) + ",ny=" + std::to_string(spec.ny) + ",nz=" + std::to_string(spec.nz);
  } else {
    if (!values.given("factors"))
      throw UsageError(names.prefix() + (args.input.empty() ? "--kind " : "") + "kronecker-product needs " +
                       names.bare("factors") + " (" + std::string(kFactorSyntax) + ")");
    const std::string factors = values.text("factors");
    try {
      g.product = std::make_shared<const KroneckerProduct>(parse_factor_list(factors));
    } catch (const UsageError& e) {
      // The factor parser names --factors; a generator input names itself.
      const std::string_view what = e.what(), option = "--factors: ";
      if (args.input.empty() || !what.starts_with(option)) throw;
      throw UsageError(names("factors") + ": " + std::string(what.substr(option.size())));
    }
    g.source = make_kronecker_product_source(g.product, threads);
    g.spec = kind + ":factors=" + factors;
  }
  return g;
}

std::optional<GeneratorArgs> generator_input(const std::string& input) {
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(input, ec)) || is_webgraph_input(input)) return std::nullopt;
  const std::size_t colon = input.find(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  const std::string kind = input.substr(0, colon);
  if (kind.find_first_of("/.") != std::string::npos) return std::nullopt;
  const std::string where = "--input '" + printable(input) + "': ";
  const std::vector<std::string>& kinds = generator_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    throw UsageError(where + "no such file, and '" + printable(kind) + "' is not a generator kind: a generator input is "
                     "KIND:PARAMETERS with KIND " + or_list(kinds) + " (e.g. kronecker:20)");
  GeneratorArgs args;
  args.kind = kind;
  args.input = input;
  const std::string rest = input.substr(colon + 1);
  const std::string main = kind == kProduct ? "factors" : kind == kGrid3d ? "grid-side" : "scale";
  if (rest.empty())
    throw UsageError(where + "no parameters after '" + kind + ":'; give at least " + main + ", e.g. " + kind + ":" +
                     (kind == kProduct ? "K4+loops,star5+loops" : kind == kGrid3d ? "32" : "20"));
  if (kind == kProduct) {  // the factor list has commas of its own
    args.given["factors"] = rest.starts_with("factors=") ? rest.substr(8) : rest;
    return args;
  }
  std::size_t start = 0;
  for (std::size_t item = 0;; ++item) {
    const std::size_t comma = std::min(rest.find(',', start), rest.size());
    const std::string text = rest.substr(start, comma - start);
    const std::size_t eq = text.find('=');
    std::string name = eq == std::string::npos ? "" : text.substr(0, eq);
    const std::string value = eq == std::string::npos ? text : text.substr(eq + 1);
    if (text.empty()) throw UsageError(where + "an empty parameter (two commas, or one at an end)");
    if (eq == std::string::npos) {
      if (item > 0)
        throw UsageError(where + "'" + printable(text) + "' is not NAME=VALUE (only the first parameter may leave out its "
                         "name, " + main + ")");
      name = main;
    }
    if (name == "threads")
      throw UsageError(where + "threads is not a parameter of the graph: tricount-partition's --threads sets the "
                       "threads that generate it");
    const auto& all = generator_parameters();
    if (std::none_of(all.begin(), all.end(), [&](const GeneratorParameter& p) { return p.name == name; })) {
      std::vector<std::string> own;
      for (const GeneratorParameter& p : all)
        if (std::find(p.kinds.begin(), p.kinds.end(), kind) != p.kinds.end()) own.push_back(p.name);
      std::string list;
      for (const std::string& n : own) list += (list.empty() ? "" : ", ") + n;
      throw UsageError(where + "unknown parameter '" + printable(name) + "'; " + kind + " takes " + list);
    }
    if (!args.given.emplace(name, value).second) throw UsageError(where + name + " is given twice");
    if (comma == rest.size()) break;
    start = comma + 1;
  }
  return args;
}

}  // namespace tricount
