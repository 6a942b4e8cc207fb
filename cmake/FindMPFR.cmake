# SPDX-License-Identifier: BSD-3-Clause
# FindMPFR: MPFR and GMP (used only for exact test references).
# Defines MPFR::MPFR. Accepts MPFR_ROOT. Falls back to the versioned runtime libraries
# (libmpfr.so.6, libgmp.so.10) where only those are installed next to carried headers.
find_path(MPFR_INCLUDE_DIR mpfr.h)
find_path(GMP_INCLUDE_DIR gmp.h PATH_SUFFIXES x86_64-linux-gnu aarch64-linux-gnu)
find_library(MPFR_LIBRARY NAMES mpfr libmpfr.so.6)
find_library(GMP_LIBRARY NAMES gmp libgmp.so.10)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(MPFR REQUIRED_VARS MPFR_LIBRARY GMP_LIBRARY MPFR_INCLUDE_DIR GMP_INCLUDE_DIR)

if(MPFR_FOUND AND NOT TARGET MPFR::MPFR)
  add_library(MPFR::MPFR INTERFACE IMPORTED)
  set_target_properties(MPFR::MPFR PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${MPFR_INCLUDE_DIR};${GMP_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${MPFR_LIBRARY};${GMP_LIBRARY}")
endif()
mark_as_advanced(MPFR_INCLUDE_DIR GMP_INCLUDE_DIR MPFR_LIBRARY GMP_LIBRARY)
