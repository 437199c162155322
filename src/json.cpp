#include "src/json.hpp"

#include <cmath>
#include <cstdio>

namespace tricount {

std::string json_escape(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

JsonObject& JsonObject::add(std::string_view key, std::uint64_t value) { return add_raw(key, std::to_string(value)); }
JsonObject& JsonObject::add(std::string_view key, std::int64_t value) { return add_raw(key, std::to_string(value)); }
JsonObject& JsonObject::add(std::string_view key, bool value) { return add_raw(key, value ? "true" : "false"); }
JsonObject& JsonObject::add(std::string_view key, std::string_view value) { return add_raw(key, json_escape(value)); }

JsonObject& JsonObject::add(std::string_view key, double value) {
  if (!std::isfinite(value)) return add_raw(key, "null");
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return add_raw(key, buf);
}

JsonObject& JsonObject::add_raw(std::string_view key, std::string raw_json) {
  order_.emplace_back(std::string(key), static_cast<int>(fields_.size()));
  fields_.emplace_back(std::string(key), std::move(raw_json));
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, const JsonObject& value) {
  order_.emplace_back(std::string(key), -1 - static_cast<int>(nested_.size()));
  nested_.emplace_back(false, std::vector<JsonObject>{value});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, const std::vector<JsonObject>& values) {
  order_.emplace_back(std::string(key), -1 - static_cast<int>(nested_.size()));
  nested_.emplace_back(true, values);
  return *this;
}

std::string JsonObject::render(int indent, int depth) const {
  const std::string pad = indent ? std::string(static_cast<std::size_t>(indent * (depth + 1)), ' ') : "";
  const std::string end_pad = indent ? std::string(static_cast<std::size_t>(indent * depth), ' ') : "";
  const std::string nl = indent ? "\n" : "";
  const std::string sep = indent ? ": " : ":";
  std::string out = "{" + nl;
  for (std::size_t n = 0; n < order_.size(); ++n) {
    const auto& [key, idx] = order_[n];
    out += pad + json_escape(key) + sep;
    if (idx >= 0) {
      out += fields_[static_cast<std::size_t>(idx)].second;
    } else {
      const auto& [is_array, values] = nested_[static_cast<std::size_t>(-1 - idx)];
      if (!is_array) {
        out += values.front().render(indent, depth + 1);
      } else {
        out += "[";
        for (std::size_t v = 0; v < values.size(); ++v) {
          out += (v ? "," : "") + nl + pad + (indent ? std::string(static_cast<std::size_t>(indent), ' ') : "") +
                 values[v].render(indent, depth + 2);
        }
        out += (values.empty() ? "" : nl + pad) + "]";
      }
    }
    out += (n + 1 < order_.size() ? "," : "") + nl;
  }
  return out + end_pad + "}";
}

std::string JsonObject::str(int indent) const { return render(indent, 0); }

}  // namespace tricount
