# SPDX-License-Identifier: MIT
# Version file of the PENCIL CMake package (pencilcc).
#
# The version is pencilcc's own, read without running anything when possible:
#   1. `${PENCILCC_EXECUTABLE} --version` when the user named the executable;
#   2. the `pencilcc-<version>.dist-info` folder beside the installed package
#      (this file is <site-packages>/clangpass/_cmake/PENCILConfigVersion.cmake);
#   3. pyproject.toml of a source checkout (this file is <checkout>/cmake/...);
#   4. `pencilcc --version` of the first pencilcc on PATH.
# Compatibility: same major version and at least the version asked for; while
# the major version is 0, the minor version must match too (semantic versioning).

set(PACKAGE_VERSION "")
set(_pencil_version_regex "([0-9]+\\.[0-9]+(\\.[0-9]+)?)")

# Sets PACKAGE_VERSION from `<executable> --version` when that works.
macro(_pencil_version_of executable)
  execute_process(COMMAND "${executable}" --version
                  OUTPUT_VARIABLE _pencil_version_out ERROR_QUIET
                  RESULT_VARIABLE _pencil_version_rc TIMEOUT 60)
  if(_pencil_version_rc EQUAL 0 AND _pencil_version_out MATCHES "${_pencil_version_regex}")
    set(PACKAGE_VERSION "${CMAKE_MATCH_1}")
  endif()
endmacro()

if(PENCILCC_EXECUTABLE AND EXISTS "${PENCILCC_EXECUTABLE}")
  _pencil_version_of("${PENCILCC_EXECUTABLE}")
endif()

if(NOT PACKAGE_VERSION)
  file(GLOB _pencil_dist_infos LIST_DIRECTORIES true
       "${CMAKE_CURRENT_LIST_DIR}/../../pencilcc-*.dist-info")
  list(SORT _pencil_dist_infos)
  foreach(_pencil_dist_info IN LISTS _pencil_dist_infos)
    get_filename_component(_pencil_dist_name "${_pencil_dist_info}" NAME)
    if(_pencil_dist_name MATCHES "^pencilcc-${_pencil_version_regex}\\.dist-info$")
      set(PACKAGE_VERSION "${CMAKE_MATCH_1}")
    endif()
  endforeach()
endif()

if(NOT PACKAGE_VERSION AND EXISTS "${CMAKE_CURRENT_LIST_DIR}/../pyproject.toml")
  file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../pyproject.toml" _pencil_version_line
       REGEX "^version *= *\"[0-9]+\\.[0-9]+" LIMIT_COUNT 1)
  if(_pencil_version_line MATCHES "${_pencil_version_regex}")
    set(PACKAGE_VERSION "${CMAKE_MATCH_1}")
  endif()
endif()

if(NOT PACKAGE_VERSION)
  find_program(_PENCIL_VERSION_PROBE pencilcc)
  if(_PENCIL_VERSION_PROBE)
    _pencil_version_of("${_PENCIL_VERSION_PROBE}")
  endif()
  unset(_PENCIL_VERSION_PROBE CACHE)
endif()

if(NOT PACKAGE_VERSION)
  # Unknown: accept any request rather than hide a working installation.
  set(PACKAGE_VERSION "0.0.0")
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  set(PACKAGE_VERSION_UNSUITABLE FALSE)
  return()
endif()

string(REGEX MATCH "^[0-9]+" _pencil_major "${PACKAGE_VERSION}")
string(REGEX REPLACE "^[0-9]+\\.([0-9]+).*" "\\1" _pencil_minor "${PACKAGE_VERSION}")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
if(PACKAGE_FIND_VERSION_RANGE)
  # find_package(PENCIL 0.1...<0.3): the version must lie in the range.
  if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MIN
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE"
         AND PACKAGE_VERSION VERSION_GREATER PACKAGE_FIND_VERSION_MAX)
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE"
         AND PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION_MAX))
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  endif()
elseif(NOT "${PACKAGE_FIND_VERSION}" STREQUAL "")
  if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION
     OR NOT _pencil_major EQUAL PACKAGE_FIND_VERSION_MAJOR
     OR (_pencil_major EQUAL 0 AND NOT _pencil_minor EQUAL PACKAGE_FIND_VERSION_MINOR))
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  endif()
  if(PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
