// Generator inputs (input/generator_spec.hpp): how --input KIND:PARAMETERS is told from a
// file and parsed, the usage errors that name the spec and what is wrong, the spec written out
// in full, and the generators' edges by index (any range, any thread) against their stream.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "input/generator_spec.hpp"
#include "input/kronecker_product.hpp"
#include "tests/test_support.hpp"

using namespace tricount;
using namespace tricount::testing;

namespace {

std::vector<RawEdge> stream_edges(EdgeSource& source, std::size_t batch = 1000) {
  std::vector<RawEdge> all, b;
  while (source.next_batch(b, batch)) all.insert(all.end(), b.begin(), b.end());
  return all;
}

GeneratorArgs spec(const std::string& text) {
  const std::optional<GeneratorArgs> args = generator_input(text);
  EXPECT_TRUE(args.has_value()) << text;
  return args.value_or(GeneratorArgs{});
}

// The UsageError that `text` gives, as a generator input, or when its generator is made.
std::string spec_error(const std::string& text) {
  try {
    const std::optional<GeneratorArgs> args = generator_input(text);
    if (!args) return "(read as a file)";
    make_generator(*args, 1);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(GeneratorInput, ShorthandAndNamedParameters) {
  GeneratorArgs a = spec("kronecker:26");
  EXPECT_EQ(a.kind, "kronecker");
  EXPECT_EQ(a.given, (std::map<std::string, std::string>{{"scale", "26"}}));
  EXPECT_EQ(a.input, "kronecker:26");
  a = spec("kronecker:20,edge-factor=8,seed=3");
  EXPECT_EQ(a.given, (std::map<std::string, std::string>{{"scale", "20"}, {"edge-factor", "8"}, {"seed", "3"}}));
  a = spec("kronecker:seed=5");  // scale and edge factor: tricount-generate's defaults
  EXPECT_EQ(make_generator(a, 1).spec, "kronecker:scale=16,edge-factor=16,seed=5");
  EXPECT_EQ(make_generator(spec("uniform:vertices=1000,edges=5000"), 1).spec, "uniform:vertices=1000,edges=5000,seed=1");
  EXPECT_EQ(make_generator(spec("uniform:10"), 1).spec, "uniform:vertices=1024,edges=16384,seed=1");
  EXPECT_EQ(make_generator(spec("grid3d:4"), 1).spec, "grid3d:nx=4,ny=4,nz=4");
  EXPECT_EQ(make_generator(spec("grid3d:nx=3,nz=2"), 1).spec, "grid3d:nx=3,ny=16,nz=2");
  // The factor list keeps its commas (and random<n>:<m>:<seed> its colons).
  a = spec("kronecker-product:K4+loops,random20:30:1,star3");
  EXPECT_EQ(a.given, (std::map<std::string, std::string>{{"factors", "K4+loops,random20:30:1,star3"}}));
  EXPECT_EQ(spec("kronecker-product:factors=K3,star2").given.at("factors"), "K3,star2");
  const Generator p = make_generator(spec("kronecker-product:K3,star2"), 1);
  EXPECT_EQ(p.spec, "kronecker-product:factors=K3,star2");
  ASSERT_NE(p.product, nullptr);
}

// The spec written out in full makes the same graph as the one it came from.
TEST(GeneratorInput, WrittenOutSpecMakesTheSameEdges) {
  for (const char* text : {"kronecker:9,edge-factor=4,seed=7", "uniform:8", "grid3d:nx=3,ny=2,nz=5",
                           "kronecker-product:K3+loops,star4"}) {
    Generator a = make_generator(spec(text), 1);
    Generator b = make_generator(spec(a.spec), 1);
    EXPECT_EQ(b.spec, a.spec);
    EXPECT_EQ(stream_edges(*a.source), stream_edges(*b.source)) << text;
  }
}

TEST(GeneratorInput, FilesAreNotSpecs) {
  TempDir dir;
  for (const char* name : {"graph.txt", "", "/data/kronecker:20", "./kronecker:20", "k.el:2", "x/y:z"})
    EXPECT_FALSE(generator_input(name).has_value()) << name;
  // A file that exists is read as a file, whatever its name.
  const std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(dir.path());
  write_file("kronecker:5", "0 1\n");
  EXPECT_FALSE(generator_input("kronecker:5").has_value());
  EXPECT_TRUE(generator_input("kronecker:6").has_value());
  std::filesystem::current_path(cwd);
}

TEST(GeneratorInput, BadSpecsNameTheSpecAndWhatIsWrong) {
  struct Case {
    const char* spec;
    std::vector<const char*> says;
  };
  const Case cases[] = {
      {"kronecker:", {"--input 'kronecker:'", "no parameters", "kronecker:20"}},
      {"kronecker:99", {"--input 'kronecker:99'", "scale must be at most 62"}},
      {"kronecker:0", {"--input 'kronecker:0'", "scale must be at least 1"}},
      {"kronecker:abc", {"--input 'kronecker:abc'", "scale: 'abc' is not a non-negative integer"}},
      {"kronecker:-1", {"scale: '-1' is not a non-negative integer"}},
      {"kronecker:20,edge-factor=99999999999999999999", {"edge-factor", "does not fit in 64 bits"}},
      {"kronecker:60,edge-factor=16", {"edge-factor * 2^scale does not fit in 64 bits"}},
      {"kronecker:20,8", {"'8' is not NAME=VALUE", "scale"}},
      {"kronecker:20,", {"an empty parameter"}},
      {"kronecker:20,bogus=1", {"unknown parameter 'bogus'", "kronecker takes scale, edge-factor, seed"}},
      {"kronecker:20,scale=21", {"scale is given twice"}},
      {"kronecker:20,threads=4", {"threads is not a parameter", "--threads"}},
      {"kronecker:20,vertices=5", {"vertices applies only to uniform, not kronecker"}},
      {"grid3d:scale=4", {"--input 'grid3d:scale=4'", "scale applies only to kronecker or uniform, not grid3d"}},
      {"grid3d:4,nx=3", {"use either grid-side or nx/ny/nz, not both"}},
      {"uniform:vertices=0", {"vertices must be at least 1"}},
      {"kronecker-product:", {"no parameters", "kronecker-product:K4+loops"}},
      {"kronecker-product:K0", {"--input 'kronecker-product:K0': factors: 'K0'"}},
      {"kronecker-product:factors=bogus7", {"--input 'kronecker-product:factors=bogus7': factors:", "bogus7"}},
      {"kroneker:20", {"--input 'kroneker:20'", "no such file", "'kroneker' is not a generator kind",
                       "kronecker, uniform, grid3d or kronecker-product"}},
  };
  for (const Case& c : cases) {
    const std::string message = spec_error(c.spec);
    for (const char* s : c.says) EXPECT_TRUE(contains(message, s)) << c.spec << ": " << message << "\nlacks: " << s;
  }
}

// tricount-generate's options go through the same checks, named as options.
TEST(GeneratorInput, GenerateOptionsKeepTheirWords) {
  const auto error = [](GeneratorArgs args) -> std::string {
    try {
      make_generator(args, 1);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(error({"kronecker", {{"scale", "99"}}, ""}), "--scale must be at most 62 for kronecker");
  EXPECT_EQ(error({"grid3d", {{"scale", "4"}}, ""}), "--scale applies only to --kind kronecker or uniform, not grid3d");
  EXPECT_EQ(error({"uniform", {{"seed", "x"}}, ""}), "--seed: 'x' is not a non-negative integer");
  EXPECT_EQ(error({"foo", {}, ""}), "--kind: unknown kind 'foo'; choose kronecker, uniform, grid3d or kronecker-product");
  EXPECT_TRUE(contains(error({"kronecker-product", {}, ""}), "--kind kronecker-product needs --factors"));
}

// Edges by index: any range, computed on any thread, is the stream's edges there.
TEST(GeneratorInput, EdgesByIndexAreTheStreamsEdges) {
  for (const char* text : {"kronecker:10,edge-factor=4", "uniform:vertices=100,edges=3000", "grid3d:nx=7,ny=5,nz=3",
                           "grid3d:nx=1,ny=4,nz=1", "grid3d:nx=2,ny=1,nz=3", "grid3d:nx=5,ny=1,nz=1", "grid3d:1",
                           "grid3d:nx=1,ny=1,nz=6", "kronecker-product:K3+loops,star4,path3"}) {
    Generator g = make_generator(spec(text), 1);
    const IndexedEdges* indexed = g.source->indexed();
    ASSERT_NE(indexed, nullptr) << text;
    const std::vector<RawEdge> all = stream_edges(*g.source, 37);
    ASSERT_EQ(all.size(), indexed->edge_count()) << text;
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 200 && !all.empty(); ++trial) {
      const std::uint64_t first = rng() % all.size(), n = rng() % (all.size() - first + 1);
      std::vector<RawEdge> part(n);
      indexed->edges_at(first, n, part.data());
      ASSERT_TRUE(std::equal(part.begin(), part.end(), all.begin() + static_cast<std::ptrdiff_t>(first)))
          << text << ": edges " << first << " + " << n;
    }
  }
}
