// Scalar HDF5 attributes, checked: written little-endian (integers as uint64, reals as
// double, strings fixed-length and null-padded), read with their type checked. Errors name
// `where` (the file and object) and the attribute.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>

namespace tricount {

// Write (or replace) attribute `name` of `obj`.
void write_attribute_u64(hid_t obj, const char* name, std::uint64_t value, const std::string& where);
void write_attribute_double(hid_t obj, const char* name, double value, const std::string& where);
void write_attribute_string(hid_t obj, const char* name, const std::string& value, const std::string& where);

bool has_attribute(hid_t obj, const char* name);
// Throw Error when the attribute is missing, holds other than one value (an array, an empty
// dataspace) or is not an integer (a fixed-length string); nothing is read before.
std::uint64_t read_attribute_u64(hid_t obj, const char* name, const std::string& where);
std::string read_attribute_string(hid_t obj, const char* name, const std::string& where);

}  // namespace tricount
