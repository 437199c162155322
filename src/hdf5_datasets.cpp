#include "src/hdf5_datasets.hpp"

#include <utility>

namespace tricount {
namespace {

// A stored dataset holds at least this share of its data's bytes (deflate stays below
// 1032:1); an unfiltered one holds all of them. Checked before anything is allocated for
// it, so a crafted length cannot make the reader ask for gigabytes the file does not have.
constexpr std::uint64_t kMaxCompressionRatio = 1100;

void select_slab(hid_t space, std::uint64_t first, std::uint64_t count, const std::string& where) {
  const hsize_t start[1] = {static_cast<hsize_t>(first)};
  const hsize_t n[1] = {static_cast<hsize_t>(count)};
  h5_check_status(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, n, nullptr), where + ": H5Sselect_hyperslab");
}

// The file and memory dataspaces of elements [first, first + count) of a 1-D dataset.
std::pair<Hdf5Handle, Hdf5Handle> slab_spaces(hid_t set, std::uint64_t first, std::uint64_t count, const std::string& where) {
  Hdf5Handle fspace(h5_check(H5Dget_space(set), where + ": H5Dget_space"), H5Sclose);
  select_slab(fspace.get(), first, count, where);
  const hsize_t dims[1] = {static_cast<hsize_t>(count)};
  Hdf5Handle mspace(h5_check(H5Screate_simple(1, dims, nullptr), where + ": H5Screate_simple"), H5Sclose);
  return {std::move(fspace), std::move(mspace)};
}

}  // namespace

Hdf5Handle untimed(hid_t cls, const std::string& where) {
  Hdf5Handle plist(h5_check(H5Pcreate(cls), where + ": H5Pcreate"), H5Pclose);
  h5_check_status(H5Pset_obj_track_times(plist.get(), false), where + ": H5Pset_obj_track_times");
  return plist;
}

Hdf5Handle create_sized_dataset(hid_t loc, const char* name, hid_t file_type, std::uint64_t length, const std::string& where) {
  const hsize_t dims[1] = {static_cast<hsize_t>(length)};
  Hdf5Handle space(h5_check(H5Screate_simple(1, dims, nullptr), where + ": H5Screate_simple"), H5Sclose);
  const Hdf5Handle dcpl = untimed(H5P_DATASET_CREATE, where);
  // Its place in the file from the start, and nothing written there until its data is: the
  // file's layout does not depend on which piece comes first, and other processes may write
  // the data at H5Dget_offset (partitioning on several ranks).
  h5_check_status(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), where + ": H5Pset_alloc_time");
  h5_check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), where + ": H5Pset_fill_time");
  return Hdf5Handle(h5_check(H5Dcreate2(loc, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                             where + ": cannot create dataset '" + name + "'"),
                    H5Dclose);
}

Hdf5Handle create_extendible_dataset(hid_t loc, const char* name, hid_t file_type, hsize_t chunk_rows, const std::string& where) {
  const hsize_t dims[1] = {0}, max_dims[1] = {H5S_UNLIMITED}, chunk[1] = {chunk_rows};
  Hdf5Handle space(h5_check(H5Screate_simple(1, dims, max_dims), where + ": H5Screate_simple"), H5Sclose);
  Hdf5Handle dcpl = untimed(H5P_DATASET_CREATE, where);
  h5_check_status(H5Pset_chunk(dcpl.get(), 1, chunk), where + ": H5Pset_chunk");
  if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
    h5_check_status(H5Pset_shuffle(dcpl.get()), where + ": H5Pset_shuffle");
    h5_check_status(H5Pset_deflate(dcpl.get(), 4), where + ": H5Pset_deflate");
  }
  return Hdf5Handle(h5_check(H5Dcreate2(loc, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                             where + ": cannot create dataset '" + name + "'"),
                    H5Dclose);
}

void write_slab(hid_t set, hid_t mem_type, std::uint64_t first, const void* data, std::uint64_t count, const std::string& where,
                const char* name) {
  if (count == 0) return;
  const auto [fspace, mspace] = slab_spaces(set, first, count, where);
  h5_check_status(H5Dwrite(set, mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data),
                  where + ": cannot write dataset '" + name + "' (disk full?)");
}

void read_slab(hid_t set, hid_t mem_type, std::uint64_t first, void* data, std::uint64_t count, const std::string& where,
               const char* name) {
  if (count == 0) return;
  const auto [fspace, mspace] = slab_spaces(set, first, count, where);
  h5_check_status(H5Dread(set, mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data),
                  where + ": cannot read back dataset '" + name + "'");
}

void append_to_dataset(hid_t set, hid_t mem_type, std::uint64_t at, const void* data, std::uint64_t count, const std::string& where,
                       const char* name) {
  if (count == 0) return;
  const hsize_t size[1] = {at + count};
  h5_check_status(H5Dset_extent(set, size), where + ": cannot extend dataset '" + name + "'");
  write_slab(set, mem_type, at, data, count, where, name);
}

std::uint64_t dataset_length(hid_t loc, const char* name, const std::string& where) {
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) throw Error(where + ": dataset '" + name + "' is missing");
  Hdf5Handle set(h5_check(H5Dopen2(loc, name, H5P_DEFAULT), where + ": cannot open dataset '" + name + "'"), H5Dclose);
  Hdf5Handle space(h5_check(H5Dget_space(set.get()), where + ": H5Dget_space"), H5Sclose);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) throw Error(where + ": dataset '" + name + "' is not 1-dimensional");
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  return dims[0];
}

std::uint64_t stored_dataset_length(hid_t loc, const char* name, std::size_t width, const std::string& where) {
  const std::uint64_t length = dataset_length(loc, name, where);
  if (length == 0) return 0;
  Hdf5Handle set(h5_check(H5Dopen2(loc, name, H5P_DEFAULT), where + ": cannot open dataset '" + name + "'"), H5Dclose);
  Hdf5Handle dcpl(H5Dget_create_plist(set.get()), H5Pclose);
  const bool filtered = dcpl.valid() && H5Pget_nfilters(dcpl.get()) > 0;
  const std::uint64_t stored = H5Dget_storage_size(set.get());
  const unsigned __int128 bytes = static_cast<unsigned __int128>(length) * width;
  if (static_cast<unsigned __int128>(stored) * (filtered ? kMaxCompressionRatio : 1) < bytes)
    throw Error(where + ": dataset '" + name + "' claims " + std::to_string(length) + " entries but the file stores only " +
                std::to_string(stored) + " bytes of them: the file is corrupt or was not written by tricount-partition "
                "(re-run tricount-partition)");
  return length;
}

}  // namespace tricount
