// 1-D HDF5 datasets, checked: written whole, in pieces (hyperslabs) or appended to, and
// read back with their length, element type and stored bytes checked first. Errors name
// `where` (the file and object) and the dataset.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "src/hdf5_check.hpp"
#include "src/hdf5_handle.hpp"

namespace tricount {

// A creation property list of class `cls` (H5P_FILE_CREATE, H5P_GROUP_CREATE,
// H5P_DATASET_CREATE) that records no modification times: a file written twice from the same
// data, by one process or by several ranks, is then the same bytes.
Hdf5Handle untimed(hid_t cls, const std::string& where);

// A new dataset `name` of `file_type` holding `data` (any contiguous array of mem_type).
template <class Array>
void write_dataset(hid_t loc, const char* name, hid_t file_type, hid_t mem_type, const Array& data, const std::string& where) {
  const hsize_t dims[1] = {static_cast<hsize_t>(data.size())};
  Hdf5Handle space(h5_check(H5Screate_simple(1, dims, nullptr), where + ": H5Screate_simple"), H5Sclose);
  const Hdf5Handle dcpl = untimed(H5P_DATASET_CREATE, where);
  Hdf5Handle set(h5_check(H5Dcreate2(loc, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                          where + ": cannot create dataset '" + name + "'"),
                 H5Dclose);
  if (!data.empty())
    h5_check_status(H5Dwrite(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
                    where + ": cannot write dataset '" + name + "' (disk full?)");
}

// A new dataset of `length` entries, to be filled by write_slab (or at its H5Dget_offset):
// contiguous, allocated now, never filled by the library.
Hdf5Handle create_sized_dataset(hid_t loc, const char* name, hid_t file_type, std::uint64_t length, const std::string& where);
// A new empty dataset that grows by append_to_dataset: chunked (`chunk_rows` entries a chunk)
// and deflated where the library has deflate.
Hdf5Handle create_extendible_dataset(hid_t loc, const char* name, hid_t file_type, hsize_t chunk_rows, const std::string& where);

// Entries [first, first + count) of a dataset, from or into `data` of mem_type.
void write_slab(hid_t set, hid_t mem_type, std::uint64_t first, const void* data, std::uint64_t count, const std::string& where,
                const char* name);
void read_slab(hid_t set, hid_t mem_type, std::uint64_t first, void* data, std::uint64_t count, const std::string& where,
               const char* name);
// Grows an extendible dataset of `at` entries by `count` entries from `data`.
void append_to_dataset(hid_t set, hid_t mem_type, std::uint64_t at, const void* data, std::uint64_t count, const std::string& where,
                       const char* name);

// The length of a 1-D dataset (Error when it is missing or not 1-D).
std::uint64_t dataset_length(hid_t loc, const char* name, const std::string& where);
// dataset_length, after checking that the file really stores `length` entries of `width`
// bytes (HDF5 hands out fill values for storage that was never written).
std::uint64_t stored_dataset_length(hid_t loc, const char* name, std::size_t width, const std::string& where);

// The `expected` entries of a dataset of T (an integer or a real of sizeof(T) bytes).
template <class T, class Array = std::vector<T>>
Array read_dataset(hid_t loc, const char* name, hid_t mem_type, std::uint64_t expected, const std::string& where) {
  const std::uint64_t length = stored_dataset_length(loc, name, sizeof(T), where);
  if (length != expected)
    throw Error(where + ": dataset '" + name + "' has " + std::to_string(length) + " entries, expected " +
                std::to_string(expected));
  Array data(length);
  if (length == 0) return data;
  Hdf5Handle set(h5_check(H5Dopen2(loc, name, H5P_DEFAULT), where + ": cannot open dataset '" + name + "'"), H5Dclose);
  Hdf5Handle type(H5Dget_type(set.get()), H5Tclose);
  const H5T_class_t element_class = std::is_floating_point_v<T> ? H5T_FLOAT : H5T_INTEGER;
  if (!type.valid() || H5Tget_class(type.get()) != element_class || H5Tget_size(type.get()) != sizeof(T))
    throw Error(where + ": dataset '" + name + "' has the wrong element type");
  h5_check_status(H5Dread(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
                  where + ": cannot read dataset '" + name + "' (file truncated or corrupt?)");
  return data;
}
// Every entry of a dataset of T, however many it has.
template <class T>
std::vector<T> read_whole_dataset(hid_t loc, const char* name, hid_t mem_type, const std::string& where) {
  return read_dataset<T>(loc, name, mem_type, dataset_length(loc, name, where), where);
}

}  // namespace tricount
