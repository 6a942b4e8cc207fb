# SPDX-License-Identifier: BSD-3-Clause
# Runs cmake/tcrVersionCheck.cmake's check on HEADER against VERSION (a.b.c), as the configure
# step does on version.cuh. Variables: SOURCE_DIR, HEADER, VERSION.
include(${SOURCE_DIR}/cmake/tcrVersionCheck.cmake)
string(REPLACE "." ";" parts "${VERSION}")
list(GET parts 0 PROJECT_VERSION_MAJOR)
list(GET parts 1 PROJECT_VERSION_MINOR)
list(GET parts 2 PROJECT_VERSION_PATCH)
set(PROJECT_VERSION "${VERSION}")
tcr_check_version_header("${HEADER}")
message(STATUS "${HEADER} agrees with ${VERSION}")
