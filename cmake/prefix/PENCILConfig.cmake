# SPDX-License-Identifier: MIT
# Installed by pip into <prefix>/share/cmake/PENCIL/, where find_package(PENCIL)
# looks without a hint when <prefix>/bin is on PATH (a virtual environment, a
# --user or system install). It forwards to the package's own PENCILConfig.cmake,
# in the folder that `pencilcc --cmake-dir` prints, found through the pencilcc
# of this prefix.
get_filename_component(_pencil_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_pencil_cmake_dir "")
foreach(_pencil_program "${_pencil_prefix}/bin/pencilcc" "${_pencil_prefix}/Scripts/pencilcc.exe")
  if(NOT _pencil_cmake_dir AND EXISTS "${_pencil_program}")
    execute_process(COMMAND "${_pencil_program}" --cmake-dir OUTPUT_VARIABLE _pencil_cmake_dir
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET TIMEOUT 60)
  endif()
endforeach()
if(_pencil_cmake_dir AND EXISTS "${_pencil_cmake_dir}/PENCILConfig.cmake")
  include("${_pencil_cmake_dir}/PENCILConfig.cmake")
else()
  set(PENCIL_FOUND FALSE)
  set(PENCIL_NOT_FOUND_MESSAGE "pencilcc of ${_pencil_prefix} does not answer --cmake-dir")
endif()
