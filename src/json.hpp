// A small ordered JSON object builder for the programs' --json output (no dependency).
#pragma once

#include <cstdint>
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

}  // namespace tricount
