# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tcr authors
#
# tcr_check_version_header(<file>): fails the configure step unless <file> defines
# TCR_VERSION_MAJOR, TCR_VERSION_MINOR and TCR_VERSION_PATCH equal to PROJECT_VERSION_MAJOR,
# _MINOR and _PATCH, and TCR_VERSION = MAJOR * 1000000 + MINOR * 1000 + PATCH.
function(tcr_check_version_header file)
  file(STRINGS "${file}" lines REGEX "^#define TCR_VERSION(_MAJOR|_MINOR|_PATCH)? +[0-9]+ *$")
  foreach(part IN ITEMS MAJOR MINOR PATCH)
    set(header_${part} "")
    foreach(line IN LISTS lines)
      if(line MATCHES "^#define TCR_VERSION_${part} +([0-9]+)")
        set(header_${part} "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    if(NOT header_${part} STREQUAL "${PROJECT_VERSION_${part}}")
      message(FATAL_ERROR "tcr: ${file} says TCR_VERSION_${part} ${header_${part}}, "
                          "project(VERSION ${PROJECT_VERSION}) says ${PROJECT_VERSION_${part}}")
    endif()
  endforeach()
  set(header_VERSION "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^#define TCR_VERSION +([0-9]+)")
      set(header_VERSION "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  math(EXPR expected "${PROJECT_VERSION_MAJOR} * 1000000 + ${PROJECT_VERSION_MINOR} * 1000 + ${PROJECT_VERSION_PATCH}")
  if(NOT header_VERSION STREQUAL "${expected}")
    message(FATAL_ERROR "tcr: ${file} says TCR_VERSION ${header_VERSION}, "
                        "project(VERSION ${PROJECT_VERSION}) needs ${expected}")
  endif()
endfunction()
