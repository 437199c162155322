// The project's JSON, both ways (no dependency): an ordered object builder for the programs'
// --json output, and a small reader for the files they read back (cost models, graph shapes).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tricount {

class JsonObject {
 public:
  JsonObject& add(std::string_view key, std::uint64_t value);
  JsonObject& add(std::string_view key, std::int64_t value);
  JsonObject& add(std::string_view key, int value) { return add(key, static_cast<std::int64_t>(value)); }
  JsonObject& add(std::string_view key, unsigned value) { return add(key, static_cast<std::uint64_t>(value)); }
  JsonObject& add(std::string_view key, double value);
  JsonObject& add(std::string_view key, bool value);
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add(std::string_view key, const char* value) { return add(key, std::string_view(value)); }
  JsonObject& add(std::string_view key, const JsonObject& value);
  JsonObject& add(std::string_view key, const std::vector<JsonObject>& values);
  JsonObject& add_raw(std::string_view key, std::string raw_json);
  bool empty() const { return order_.empty(); }
  std::string str(int indent = 2) const;

 private:
  std::string render(int indent, int depth) const;
  std::vector<std::pair<std::string, std::string>> fields_;  // key -> rendered at depth 0
  std::vector<std::pair<bool, std::vector<JsonObject>>> nested_;  // is_array, values
  std::vector<std::pair<std::string, int>> order_;  // key, index into fields_ (>=0) or -(1+nested)
};

std::string json_escape(std::string_view s);

// A parsed JSON value: objects, arrays, numbers, strings, bools, null.
struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  double number = 0;
  bool boolean = false;
  std::string text;  // a String's value; a Number's literal as written
  std::vector<JsonValue> items;
  std::map<std::string, JsonValue> fields;
};

// Parses one JSON document. `what` names the kind of file for messages: a syntax error throws
// Error "'<path>': not <what>: <problem> at byte <offset>".
JsonValue parse_json(const std::string& text, const std::string& path, const std::string& what);
// Reads and parses the file at `path` (Error "cannot read '<path>'" when it cannot be read).
JsonValue read_json_file(const std::string& path, const std::string& what);
// object[key], which must be of `kind`; else Error "'<path>': not <what>: field '<key>' is
// missing or of the wrong type".
const JsonValue& json_field(const JsonValue& object, const std::string& key, JsonValue::Kind kind, const std::string& path,
                            const std::string& what);
// object[key] as an exact 64-bit count (from the number's literal, not its double); else Error
// as json_field's, or "field '<key>' is <literal>, not an integer from 0 to 2^64 - 1".
std::uint64_t json_uint64(const JsonValue& object, const std::string& key, const std::string& path, const std::string& what);

}  // namespace tricount
