# SPDX-License-Identifier: BSD-3-Clause
# Configures (and builds and runs) test/install/consumer, an outside project, in one of the ways a
# user gets tcr. Variables: MODE (package, subdirectory, fetchcontent, fetchcontent_url,
# parent_cache), TCR_SOURCE_DIR, CONSUMER_DIR, WORK_DIR, GENERATOR, CUDA_COMPILER, CXX_COMPILER.
#   package       configures tcr alone with every test dependency disabled, installs it into a
#                 scratch prefix, checks the installed layout, then builds the consumer against
#                 it with find_package(tcr)
#   subdirectory, fetchcontent
#                 the consumer takes tcr from the source tree
#   fetchcontent_url
#                 packs the library's files (below) into a tarball with one top-level folder, as a
#                 release archive has, and the consumer takes tcr from it with FetchContent_Declare(
#                 URL file://... URL_HASH SHA256=...): tcr builds from what it ships, without the
#                 source tree, its build folders or its tests
#   parent_cache  the consumer (C++ only, no architectures, no build type) adds tcr as a
#                 subdirectory; configured only: tcr must leave its cache alone
# Each consumer build is one .cu file for sm_90 (parent_cache: no build).
file(REMOVE_RECURSE "${WORK_DIR}")
set(compilers "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${what} failed: ${rc}")
  endif()
endfunction()

set(consumer_args -DTCR_CONSUME=${MODE})
if(MODE STREQUAL "package")
  # Installing needs no test dependency: each is disabled (find_package of a disabled package
  # finds nothing, and a REQUIRED one fails the configure).
  set(disabled)
  foreach(pkg IN ITEMS MPFR doctest benchmark CCCL)
    list(APPEND disabled -DCMAKE_DISABLE_FIND_PACKAGE_${pkg}=ON)
  endforeach()
  run("configuring tcr with tests, benchmarks and examples off"
    "${CMAKE_COMMAND}" -S "${TCR_SOURCE_DIR}" -B "${WORK_DIR}/tcr" -G "${GENERATOR}" ${compilers}
    -DTCR_BUILD_TESTS=OFF -DTCR_BUILD_BENCHMARKS=OFF -DTCR_BUILD_EXAMPLES=OFF ${disabled}
    "-DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix")
  run("cmake --install" "${CMAKE_COMMAND}" --install "${WORK_DIR}/tcr")
  set(prefix "${WORK_DIR}/prefix")
  foreach(f IN ITEMS include/tcr/tcr.cuh include/tcr/version.cuh include/tcr/reduce/device.cuh
                     include/tcr/reduce/block.cuh include/tcr/reduce/warp.cuh
                     include/tcr/mma/fragment.cuh share/doc/tcr/LICENSE)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "the installed package lacks ${f}")
    endif()
  endforeach()
  file(GLOB_RECURSE config "${prefix}/*/tcrConfig.cmake")
  file(GLOB unprefixed "${prefix}/include/*")
  list(REMOVE_ITEM unprefixed "${prefix}/include/tcr")
  if(NOT config OR unprefixed)
    message(FATAL_ERROR "installed layout: tcrConfig.cmake at '${config}'; outside include/tcr: "
                        "'${unprefixed}'")
  endif()
  list(APPEND consumer_args "-DCMAKE_PREFIX_PATH=${prefix}")
elseif(MODE STREQUAL "fetchcontent_url")
  # What a subproject tcr needs (TCR_BUILD_TESTS, _BENCHMARKS and _EXAMPLES are off there): the
  # top-level CMakeLists.txt, cmake/, the headers, and the files install() names.
  set(top_files CMakeLists.txt LICENSE CHANGELOG.md README.md tcr.cuh version.cuh)
  set(top_dirs cmake compensated mma reduce)
  set(stage "${WORK_DIR}/stage/tcr-src")
  foreach(f IN LISTS top_files)
    file(COPY "${TCR_SOURCE_DIR}/${f}" DESTINATION "${stage}")
  endforeach()
  foreach(d IN LISTS top_dirs)
    file(COPY "${TCR_SOURCE_DIR}/${d}" DESTINATION "${stage}")
  endforeach()
  set(tarball "${WORK_DIR}/tcr-src.tar.gz")
  run("packing ${tarball}" "${CMAKE_COMMAND}" -E chdir "${WORK_DIR}/stage"
    "${CMAKE_COMMAND}" -E tar czf "${tarball}" tcr-src)
  file(SHA256 "${tarball}" hash)
  file(GLOB_RECURSE packed RELATIVE "${stage}" "${stage}/*")
  list(LENGTH packed packed_count)
  message(STATUS "packed ${packed_count} files into ${tarball} (SHA256 ${hash})")
  list(APPEND consumer_args "-DTCR_URL=file://${tarball}" "-DTCR_URL_HASH=SHA256=${hash}")
else()
  list(APPEND consumer_args "-DTCR_SOURCE_DIR=${TCR_SOURCE_DIR}")
endif()

if(MODE STREQUAL "parent_cache")
  # No CMAKE_BUILD_TYPE, no CMAKE_CUDA_ARCHITECTURES: whatever ends up in the cache must be
  # CMake's own default, not tcr's (Release, 90).
  set(ENV{CMAKE_BUILD_TYPE} "")
  set(ENV{CUDAARCHS} "")
  run("configuring the consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build"
    -G "${GENERATOR}" ${compilers} ${consumer_args})
  # What CMake alone puts there: a C++-only project that enables CUDA without tcr.
  file(WRITE "${WORK_DIR}/control/CMakeLists.txt"
    "cmake_minimum_required(VERSION 3.25)\nproject(control LANGUAGES CXX)\nenable_language(CUDA)\n")
  run("configuring the control project" "${CMAKE_COMMAND}" -S "${WORK_DIR}/control"
    -B "${WORK_DIR}/control/build" -G "${GENERATOR}" ${compilers})
  function(read_cache dir prefix)
    file(STRINGS "${dir}/CMakeCache.txt" cache)
    set(${prefix}_build_type "<unset>" PARENT_SCOPE)
    set(${prefix}_archs "<unset>" PARENT_SCOPE)
    set(${prefix}_tests "<unset>" PARENT_SCOPE)
    foreach(line IN LISTS cache)
      if(line MATCHES "^CMAKE_BUILD_TYPE:[A-Z]+=(.*)$")
        set(${prefix}_build_type "${CMAKE_MATCH_1}" PARENT_SCOPE)
      elseif(line MATCHES "^CMAKE_CUDA_ARCHITECTURES:[A-Z]+=(.*)$")
        set(${prefix}_archs "${CMAKE_MATCH_1}" PARENT_SCOPE)
      elseif(line MATCHES "^TCR_BUILD_TESTS:[A-Z]+=(.*)$")
        set(${prefix}_tests "${CMAKE_MATCH_1}" PARENT_SCOPE)
      elseif(line MATCHES "^(doctest_DIR|benchmark_DIR|CCCL_DIR|MPFR_[A-Z_]*):")
        message(FATAL_ERROR "a subproject tcr looked for a test dependency: ${line}")
      endif()
    endforeach()
  endfunction()
  read_cache("${WORK_DIR}/build" parent)
  read_cache("${WORK_DIR}/control/build" control)
  message(STATUS "parent cache: CMAKE_BUILD_TYPE '${parent_build_type}' (without tcr: "
                 "'${control_build_type}'), CMAKE_CUDA_ARCHITECTURES '${parent_archs}' (without "
                 "tcr: '${control_archs}'), TCR_BUILD_TESTS '${parent_tests}'")
  if(NOT parent_build_type STREQUAL control_build_type OR
     NOT parent_archs STREQUAL control_archs OR NOT parent_tests STREQUAL "OFF")
    message(FATAL_ERROR "tcr as a subproject changed the parent's cache (expected what CMake "
                        "alone gives, and TCR_BUILD_TESTS OFF)")
  endif()
  return()
endif()

run("configuring the consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build"
  -G "${GENERATOR}" ${compilers} -DCMAKE_CUDA_ARCHITECTURES=90 ${consumer_args})
run("building the consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("running the consumer" "${WORK_DIR}/build/consumer")
