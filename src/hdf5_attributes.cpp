#include "src/hdf5_attributes.hpp"

#include <algorithm>
#include <cstring>

#include "src/hdf5_check.hpp"
#include "src/hdf5_handle.hpp"

namespace tricount {
namespace {

void write_scalar(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* value, const std::string& where) {
  Hdf5Handle space(h5_check(H5Screate(H5S_SCALAR), where + ": H5Screate"), H5Sclose);
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Hdf5Handle attr(h5_check(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                           where + ": cannot create attribute '" + name + "'"),
                  H5Aclose);
  h5_check_status(H5Awrite(attr.get(), mem_type, value), where + ": cannot write attribute '" + name + "' (disk full?)");
}

}  // namespace

void write_attribute_u64(hid_t obj, const char* name, std::uint64_t value, const std::string& where) {
  write_scalar(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value, where);
}

void write_attribute_double(hid_t obj, const char* name, double value, const std::string& where) {
  write_scalar(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, where);
}

void write_attribute_string(hid_t obj, const char* name, const std::string& value, const std::string& where) {
  Hdf5Handle type(h5_check(H5Tcopy(H5T_C_S1), where + ": H5Tcopy"), H5Tclose);
  h5_check_status(H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)), where + ": H5Tset_size");
  h5_check_status(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), where + ": H5Tset_strpad");
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  write_scalar(obj, name, type.get(), type.get(), padded.data(), where);
}

bool has_attribute(hid_t obj, const char* name) { return H5Aexists(obj, name) > 0; }

namespace {

// Attribute `name` of `obj`, opened, once it is known to hold one value: H5Aread writes
// every value it holds, and the callers' buffers have room for one.
Hdf5Handle open_one_value(hid_t obj, const char* name, const std::string& where) {
  if (!has_attribute(obj, name)) throw Error(where + ": attribute '" + name + "' is missing");
  Hdf5Handle attr(h5_check(H5Aopen(obj, name, H5P_DEFAULT), where + ": cannot open attribute '" + name + "'"), H5Aclose);
  Hdf5Handle space(h5_check(H5Aget_space(attr.get()), where + ": cannot read attribute '" + name + "'"), H5Sclose);
  const hssize_t values = H5Sget_simple_extent_npoints(space.get());
  if (values < 0) throw Error(where + ": cannot read attribute '" + name + "'");
  if (values != 1)
    throw Error(where + ": attribute '" + name + "' holds " + std::to_string(values) +
                " values, not one: the file is damaged or was edited (re-run tricount-partition)");
  return attr;
}

}  // namespace

std::uint64_t read_attribute_u64(hid_t obj, const char* name, const std::string& where) {
  const Hdf5Handle attr = open_one_value(obj, name, where);
  Hdf5Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_INTEGER)
    throw Error(where + ": attribute '" + name + "' is not an integer");
  std::uint64_t value = 0;
  h5_check_status(H5Aread(attr.get(), H5T_NATIVE_UINT64, &value), where + ": cannot read attribute '" + name + "'");
  return value;
}

std::string read_attribute_string(hid_t obj, const char* name, const std::string& where) {
  const Hdf5Handle attr = open_one_value(obj, name, where);
  Hdf5Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING)
    throw Error(where + ": attribute '" + name + "' is not a string");
  if (H5Tis_variable_str(type.get()) > 0) throw Error(where + ": attribute '" + name + "' is a variable-length string");
  const std::size_t size = H5Tget_size(type.get());
  std::string value(size, '\0');
  h5_check_status(H5Aread(attr.get(), type.get(), value.data()), where + ": cannot read attribute '" + name + "'");
  value.resize(std::strlen(value.c_str()));
  return value;
}

}  // namespace tricount
