// The synthetic graphs by kind and parameter, defined once: tricount-generate's options
// (--kind kronecker --scale 20) and a generator input, which tricount-partition generates
// itself without an edge file (--input kronecker:20), are the same parameters, checked and
// turned into a generator by the same code.
//
// A generator input is KIND:PARAMETERS, PARAMETERS a comma-separated list of NAME=VALUE with
// tricount-generate's option names; the first may be a bare value, the kind's main parameter:
//   kronecker:SCALE              kronecker:26, kronecker:scale=20,edge-factor=8,seed=3
//   uniform:SCALE                uniform:20, uniform:vertices=1000000,edges=8000000,seed=2
//   grid3d:SIDE                  grid3d:64, grid3d:nx=100,ny=50,nz=20
//   kronecker-product:FACTORS    the --factors list itself, commas included (also factors=...)
// A path that exists is always read as a file, whatever its name (./kronecker:26 or
// kronecker:26 when there is such a file); a name with a '/' or a '.' before its first ':',
// or none, is a file name too.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/edge_source.hpp"

namespace tricount {

class KroneckerProduct;

// One parameter: tricount-generate's --NAME and a generator input's NAME=VALUE.
struct GeneratorParameter {
  std::string name;
  std::vector<std::string> kinds;  // the kinds it applies to
  std::optional<std::string> default_value;
  std::string help;  // tricount-generate --help's text
};
// Every kind's parameters, in --help order.
const std::vector<GeneratorParameter>& generator_parameters();
// The kinds: kronecker, uniform, grid3d, kronecker-product.
const std::vector<std::string>& generator_kinds();

// A kind and the parameters given for it; the others take their defaults.
struct GeneratorArgs {
  std::string kind;
  std::map<std::string, std::string> given;  // NAME -> VALUE, as written
  // Where they were written, for messages: "" for tricount-generate's options ("--scale must
  // be at least 1"), else the generator input ("--input 'kronecker:0': scale must be ...").
  std::string input;
};

struct Generator {
  std::unique_ptr<EdgeSource> source;  // its indexed() gives the edges by index
  // kronecker-product: the product, whose vertex, edge and triangle counts are known.
  std::shared_ptr<const KroneckerProduct> product;
  // The generator input for the same graph with every parameter written out
  // ("kronecker:scale=20,edge-factor=16,seed=1"): what a block file records as its source.
  std::string spec;
};

// The generator of `args`, computing a stream's batches on `threads` threads (0: all usable
// cores; the edges are the same for any number). Throws UsageError naming the parameter (in
// args' words) for an unknown kind, a parameter of another kind or a bad value; Error for a
// factor file that cannot be read.
Generator make_generator(const GeneratorArgs& args, unsigned threads);

// What --input `input` names: nullopt for a file (see the header comment for how a file and a
// generator input are told apart), else the generator input's kind and parameters. Throws
// UsageError naming `input` and what is wrong for a KIND: prefix of no kind, no parameters,
// an unnamed parameter after the first, an unknown or repeated name. The values are checked
// by make_generator.
std::optional<GeneratorArgs> generator_input(const std::string& input);

}  // namespace tricount
