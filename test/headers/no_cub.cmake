# SPDX-License-Identifier: BSD-3-Clause
# Fails if a library header includes CUB or Thrust: tcr::tcr does not link CCCL::CCCL, and
# consumers must not need it. Variables: SOURCE_DIR.
file(GLOB_RECURSE headers "${SOURCE_DIR}/reduce/*.cuh" "${SOURCE_DIR}/mma/*.cuh"
     "${SOURCE_DIR}/compensated/*.cuh")
list(APPEND headers "${SOURCE_DIR}/tcr.cuh" "${SOURCE_DIR}/version.cuh")
set(bad "")
foreach(h IN LISTS headers)
  file(STRINGS "${h}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](cub|thrust)/")
  foreach(line IN LISTS lines)
    string(APPEND bad "\n  ${h}: ${line}")
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "library headers include CUB or Thrust (link CCCL::CCCL in tcr::tcr, "
                      "or drop the include):${bad}")
endif()
list(LENGTH headers count)
message(STATUS "${count} headers, none includes CUB or Thrust")
