#include "src/json.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "src/types.hpp"

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

// ---- The reader: objects, arrays, numbers, strings, bools, null.
namespace {

class JsonReader {
 public:
  JsonReader(const std::string& text, const std::string& path, const std::string& what) : s_(text), path_(path), what_(what) {}
  JsonValue document() {
    JsonValue v = value();
    skip();
    if (i_ != s_.size()) fail("text after the JSON value");
    return v;
  }

 private:
  const std::string& s_;
  const std::string& path_;
  const std::string& what_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const std::string& problem) const {
    throw Error("'" + path_ + "': not " + what_ + ": " + problem + " at byte " + std::to_string(i_));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    skip();
    if (i_ >= s_.size() || s_[i_] != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_body() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        if (i_ >= s_.size()) fail("unterminated string");
        const char e = s_[i_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 'r': c = '\r'; break;
          case 't': c = '\t'; break;
          case 'u':
            if (i_ + 4 > s_.size()) fail("bad \\u escape");
            c = static_cast<char>(std::strtol(s_.substr(i_, 4).c_str(), nullptr, 16));
            i_ += 4;
            break;
          default: c = e;
        }
      }
      out += c;
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  // Nesting deeper than this is refused: the reader recurses, and a file of 100,000 '['
  // overflowed the stack. The project's files nest 3 deep.
  static constexpr int kMaxDepth = 64;

  JsonValue value(int depth = 0) {
    skip();
    if (i_ >= s_.size()) fail("unexpected end");
    JsonValue v;
    const char c = s_[i_];
    if ((c == '{' || c == '[') && depth >= kMaxDepth)
      fail("arrays and objects nested more than " + std::to_string(kMaxDepth) + " deep");
    if (c == '{') {
      v.kind = JsonValue::Object;
      ++i_;
      skip();
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, v;
      for (;;) {
        std::string key = string_body();
        expect(':');
        v.fields[key] = value(depth + 1);
        skip();
        if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = JsonValue::Array;
      ++i_;
      skip();
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, v;
      for (;;) {
        v.items.push_back(value(depth + 1));
        skip();
        if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = JsonValue::String;
      v.text = string_body();
      return v;
    }
    for (const char* word : {"true", "false", "null"})
      if (s_.compare(i_, std::strlen(word), word) == 0) {
        i_ += std::strlen(word);
        v.kind = word[0] == 'n' ? JsonValue::Null : JsonValue::Bool;
        v.boolean = word[0] == 't';
        return v;
      }
    char* end = nullptr;
    v.number = std::strtod(s_.c_str() + i_, &end);
    if (end == s_.c_str() + i_) fail("expected a value");
    v.kind = JsonValue::Number;
    const std::size_t start = i_;
    i_ = static_cast<std::size_t>(end - s_.c_str());
    v.text.assign(s_, start, i_ - start);  // the literal: counts above 2^53 are exact only there
    return v;
  }
};

}  // namespace

JsonValue parse_json(const std::string& text, const std::string& path, const std::string& what) {
  return JsonReader(text, path, what).document();
}

JsonValue read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  return parse_json(text, path, what);
}

const JsonValue& json_field(const JsonValue& object, const std::string& key, JsonValue::Kind kind, const std::string& path,
                            const std::string& what) {
  auto it = object.fields.find(key);
  if (object.kind != JsonValue::Object || it == object.fields.end() || it->second.kind != kind)
    throw Error("'" + path + "': not " + what + ": field '" + key + "' is missing or of the wrong type");
  return it->second;
}

std::uint64_t json_uint64(const JsonValue& object, const std::string& key, const std::string& path, const std::string& what) {
  const JsonValue& v = json_field(object, key, JsonValue::Number, path, what);
  std::uint64_t out = 0;
  const char* const end = v.text.data() + v.text.size();
  const auto [ptr, ec] = std::from_chars(v.text.data(), end, out);
  if (ec != std::errc() || ptr != end || v.text.empty())
    throw Error("'" + path + "': not " + what + ": field '" + key + "' is " + v.text + ", not an integer from 0 to 2^64 - 1");
  return out;
}

}  // namespace tricount
