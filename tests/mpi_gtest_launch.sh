#!/bin/sh
# How ctest runs one test of an MPI test executable (tricount_mpi_gtest, tests/CMakeLists.txt):
#   mpi_gtest_launch.sh MPIEXEC EXECUTABLE [ARGS...] --mpi-ranks=N
# runs EXECUTABLE ARGS under MPIEXEC -np N, oversubscribed; listing the tests
# (--gtest_list_tests, ctest's discovery) runs EXECUTABLE alone, without MPI.
set -eu
mpiexec=$1
exe=$2
shift 2
ranks=1
list=0
for arg; do
  shift
  case $arg in
    --mpi-ranks=*) ranks=${arg#--mpi-ranks=} ;;
    --gtest_list_tests) list=1; set -- "$@" "$arg" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
if [ "$list" = 1 ]; then exec "$exe" "$@"; fi
# As root (CI containers), on fewer cores than ranks, unbound; an explicit setting wins.
export OMPI_ALLOW_RUN_AS_ROOT="${OMPI_ALLOW_RUN_AS_ROOT:-1}"
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}"
export OMPI_MCA_rmaps_base_oversubscribe="${OMPI_MCA_rmaps_base_oversubscribe:-1}"
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
# Unbound, as scripts/mpi-env: a rank bound to one core would be warned about (count/launch_checks).
export OMPI_MCA_hwloc_base_binding_policy="${OMPI_MCA_hwloc_base_binding_policy:-none}"
# Its own Open MPI session directory: mpiexec runs of tests at once raced to create the
# shared /tmp/ompi.HOST.UID ("mkdir ...: File exists"); an explicit setting wins.
if [ -n "${OMPI_MCA_orte_tmpdir_base:-}" ]; then exec "$mpiexec" -np "$ranks" --oversubscribe "$exe" "$@"; fi
session=$(mktemp -d "${TMPDIR:-/tmp}/tricount-mpi-XXXXXX")
export OMPI_MCA_orte_tmpdir_base="$session"
rc=0
"$mpiexec" -np "$ranks" --oversubscribe "$exe" "$@" || rc=$?
rm -rf "$session"
exit "$rc"
