# SPDX-License-Identifier: MIT
# PENCIL CMake package: compile only a project's kernels with pencilcc.
#
#   cmake -S . -B build -DPENCIL_DIR="$(pencilcc --cmake-dir)"
#
#   find_package(PENCIL REQUIRED)
#   pencil_add_sources(kernel_objects SOURCES kernels/gemm.c kernels/stencil.c
#                      OPTIONS -I${CMAKE_CURRENT_SOURCE_DIR}/include)
#   add_executable(app main.c ${kernel_objects})
#   target_link_libraries(app PRIVATE PENCIL::runtime)
#
# The rest of the project is compiled by the project's own C compiler (gcc, ...).
#
# Result variables:
#   PENCIL_FOUND          TRUE when pencilcc was found and answers --version
#   PENCIL_VERSION        pencilcc's version
#   PENCILCC_EXECUTABLE   the pencilcc program (cache; set it to choose another one)
#   PENCILCC_COMMAND      the command pencil_add_sources runs: the executable, or
#                         `python -m clangpass` when only the Python package is there
#   PENCIL_INCLUDE_DIRS   the directory of pencil.h (`pencilcc --print-include-dir`)
#   PENCIL_DEFINITIONS    compile flags a program using PENCIL needs (--show-cc-args=DEFFLAGS)
#   PENCIL_LIBRARIES      what optimised code links against (--show-cc-args=LIBS,
#                         else the OpenMP runtime)
#   PENCIL_LIBRARY_DIRS   where those libraries are (--show-cc-args=LIBRARY_DIRS)
#
# Imported target:
#   PENCIL::runtime       INTERFACE: include dir of pencil.h, definitions, and the
#                         link flags of the runtime (link-only: the OpenMP runtime
#                         does not turn on OpenMP for the project's own code)
#
# Function:
#   pencil_add_sources(<outvar> SOURCES <file>... [TARGET <target>] [OPTIONS <flag>...])
#     Adds one custom command per source that compiles it with pencilcc into
#     ${CMAKE_CURRENT_BINARY_DIR}/pencil_objects/<source path>.o and stores the
#     object paths in <outvar>, to be listed among the sources of any target of
#     the same directory.  Each compile gets -O3 (unless OPTIONS holds an -O flag),
#     -fsave-optimization-record (the record lands beside the object as
#     <source path>.opt.json), and a dependency file so that editing a header
#     recompiles the kernels that include it.  TARGET passes that target's include
#     directories and compile definitions (with those of the targets it links)
#     and its position-independence; OPTIONS are passed as given.
#
# How pencilcc is found, first match wins:
#   1. -DPENCILCC_EXECUTABLE=/path/to/pencilcc;
#   2. the bin/ (Scripts/ on Windows) folder of the Python installation this
#      file belongs to (it lives in <site-packages>/clangpass/_cmake/);
#   3. pencilcc on PATH;
#   4. a Python interpreter that can run `python -m clangpass` with the package
#      that holds this file.

cmake_policy(PUSH)
cmake_policy(VERSION 3.16...3.27)

include(FindPackageMessage)

set(_pencil_package_root "")          # folder that holds clangpass/, if any
get_filename_component(_pencil_parent "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
get_filename_component(_pencil_parent_name "${_pencil_parent}" NAME)
set(_pencil_hints "")
if(_pencil_parent_name STREQUAL "clangpass")
  # Installed: <prefix>/lib/pythonX.Y/site-packages/clangpass/_cmake (venv, user
  # and system installs), <prefix>/lib/python3/dist-packages/... (Debian),
  # <prefix>/Lib/site-packages/... (Windows).
  get_filename_component(_pencil_package_root "${_pencil_parent}/.." ABSOLUTE)
  get_filename_component(_pencil_prefix4 "${_pencil_package_root}/../../.." ABSOLUTE)
  get_filename_component(_pencil_prefix3 "${_pencil_package_root}/../.." ABSOLUTE)
  list(APPEND _pencil_hints "${_pencil_prefix4}/bin" "${_pencil_prefix3}/bin"
                            "${_pencil_prefix3}/Scripts")
elseif(EXISTS "${_pencil_parent}/clangpass/__init__.py")
  # A source checkout: <checkout>/cmake, perhaps with a virtual environment.
  set(_pencil_package_root "${_pencil_parent}")
  list(APPEND _pencil_hints "${_pencil_parent}/.venv/bin" "${_pencil_parent}/venv/bin")
endif()

if(PENCILCC_EXECUTABLE AND NOT IS_ABSOLUTE "${PENCILCC_EXECUTABLE}")
  # -DPENCILCC_EXECUTABLE=name: resolve it on PATH.
  find_program(_PENCILCC_NAMED NAMES "${PENCILCC_EXECUTABLE}")
  if(_PENCILCC_NAMED)
    set(PENCILCC_EXECUTABLE "${_PENCILCC_NAMED}" CACHE FILEPATH "The pencilcc compiler" FORCE)
  endif()
  unset(_PENCILCC_NAMED CACHE)
endif()
find_program(PENCILCC_EXECUTABLE NAMES pencilcc HINTS ${_pencil_hints}
             DOC "The pencilcc compiler")

set(PENCILCC_COMMAND "")
if(PENCILCC_EXECUTABLE)
  set(PENCILCC_COMMAND "${PENCILCC_EXECUTABLE}")
elseif(_pencil_package_root)
  # No pencilcc script: a Python that has pencilcc's dependencies runs the
  # package this file belongs to.
  find_program(_PENCIL_PYTHON NAMES python3 python HINTS ${_pencil_hints})
  if(_PENCIL_PYTHON)
    set(_pencil_pythonpath "${_pencil_package_root}")
    if(NOT WIN32 AND NOT "$ENV{PYTHONPATH}" STREQUAL "")
      string(APPEND _pencil_pythonpath ":$ENV{PYTHONPATH}")
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${_pencil_pythonpath}"
                            "${_PENCIL_PYTHON}" -c "import clangpass.driver.main, islpy, llvmlite, clang.cindex"
                    RESULT_VARIABLE _pencil_rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
    if(_pencil_rc EQUAL 0)
      set(PENCILCC_COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${_pencil_pythonpath}"
                           "${_PENCIL_PYTHON}" -m clangpass)
    endif()
  endif()
  unset(_PENCIL_PYTHON CACHE)
endif()

set(_pencil_failure "")
if(NOT PENCILCC_COMMAND)
  set(_pencil_failure "pencilcc was not found: install it (pip install pencilcc), put it on PATH, or set -DPENCILCC_EXECUTABLE=/path/to/pencilcc.")
else()
  execute_process(COMMAND ${PENCILCC_COMMAND} --version
                  OUTPUT_VARIABLE _pencil_out ERROR_VARIABLE _pencil_err
                  RESULT_VARIABLE _pencil_rc TIMEOUT 120)
  if(NOT _pencil_rc EQUAL 0)
    string(REPLACE ";" " " _pencil_shown "${PENCILCC_COMMAND}")
    set(_pencil_failure "`${_pencil_shown} --version` failed (${_pencil_rc}): ${_pencil_err}")
  elseif(_pencil_out MATCHES "([0-9]+\\.[0-9]+(\\.[0-9]+)?)")
    if(PENCIL_VERSION AND NOT PENCIL_VERSION STREQUAL "0.0.0"
       AND NOT PENCIL_VERSION VERSION_EQUAL CMAKE_MATCH_1)
      message(WARNING "PENCIL: this package is version ${PENCIL_VERSION} but "
                      "${PENCILCC_EXECUTABLE} is version ${CMAKE_MATCH_1}; using the latter.")
    endif()
    set(PENCIL_VERSION "${CMAKE_MATCH_1}")
  endif()
endif()

if(_pencil_failure)
  set(PENCIL_FOUND FALSE)
  set(PENCIL_NOT_FOUND_MESSAGE "${_pencil_failure}")
  cmake_policy(POP)
  return()
endif()

# _pencil_query(<outvar> <pencilcc arguments>...): the lines pencilcc prints as
# a CMake list; <outvar>_OK says whether it succeeded.
function(_pencil_query outvar)
  execute_process(COMMAND ${PENCILCC_COMMAND} ${ARGN}
                  OUTPUT_VARIABLE out ERROR_QUIET RESULT_VARIABLE rc TIMEOUT 120)
  string(STRIP "${out}" out)
  string(REPLACE "\n" ";" out "${out}")
  list(REMOVE_ITEM out "")
  if(rc EQUAL 0)
    set(${outvar}_OK TRUE PARENT_SCOPE)
  else()
    set(${outvar}_OK FALSE PARENT_SCOPE)
    set(out "")
  endif()
  set(${outvar} "${out}" PARENT_SCOPE)
endfunction()

# pencil.h: what pencilcc says, else the copy shipped beside this package.
_pencil_query(PENCIL_INCLUDE_DIRS --print-include-dir)
if(NOT PENCIL_INCLUDE_DIRS)
  foreach(_pencil_dir "${_pencil_parent}/_include" "${_pencil_parent}/include")
    if(EXISTS "${_pencil_dir}/pencil.h")
      set(PENCIL_INCLUDE_DIRS "${_pencil_dir}")
      break()
    endif()
  endforeach()
endif()
_pencil_query(_pencil_extra_includes --show-cc-args=INCLUDE_DIRS "--show-listsep=\n")
list(APPEND PENCIL_INCLUDE_DIRS ${_pencil_extra_includes})

# DEFFLAGS: -D flags become compile definitions, -I flags include directories,
# anything else a compile option.
_pencil_query(PENCIL_DEFINITIONS --show-cc-args=DEFFLAGS "--show-listsep=\n")
set(_pencil_definitions "")
set(_pencil_compile_options "")
foreach(_pencil_flag IN LISTS PENCIL_DEFINITIONS)
  if(_pencil_flag MATCHES "^-D(.+)")
    list(APPEND _pencil_definitions "${CMAKE_MATCH_1}")
  elseif(_pencil_flag MATCHES "^-I(.+)")
    list(APPEND PENCIL_INCLUDE_DIRS "${CMAKE_MATCH_1}")
  else()
    list(APPEND _pencil_compile_options "${_pencil_flag}")
  endif()
endforeach()
list(TRANSFORM PENCIL_INCLUDE_DIRS REPLACE "^-I" "")
list(REMOVE_DUPLICATES PENCIL_INCLUDE_DIRS)

_pencil_query(PENCIL_LIBRARY_DIRS --show-cc-args=LIBRARY_DIRS "--show-listsep=\n")
list(TRANSFORM PENCIL_LIBRARY_DIRS REPLACE "^-L" "")
_pencil_query(PENCIL_LIBRARIES --show-cc-args=LIBS "--show-listsep=\n")
set(_pencil_link_libraries ${PENCIL_LIBRARIES})
if(NOT PENCIL_LIBRARIES_OK)
  # A pencilcc without --show-cc-args: optimised code calls the OpenMP runtime.
  get_property(_pencil_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  foreach(_pencil_lang C CXX)
    if(_pencil_lang IN_LIST _pencil_languages)
      find_package(OpenMP QUIET COMPONENTS ${_pencil_lang})
      if(TARGET OpenMP::OpenMP_${_pencil_lang})
        set(_pencil_link_libraries "$<LINK_ONLY:OpenMP::OpenMP_${_pencil_lang}>")
        set(PENCIL_LIBRARIES "${OpenMP_${_pencil_lang}_FLAGS}" ${OpenMP_${_pencil_lang}_LIBRARIES})
        break()
      endif()
    endif()
  endforeach()
  if(NOT _pencil_link_libraries)
    set(PENCIL_LIBRARIES -fopenmp)
    set(_pencil_link_libraries -fopenmp)
  endif()
endif()

if(NOT TARGET PENCIL::runtime)
  add_library(PENCIL::runtime INTERFACE IMPORTED)
  set_target_properties(PENCIL::runtime PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${PENCIL_INCLUDE_DIRS}"
    INTERFACE_COMPILE_DEFINITIONS "${_pencil_definitions}"
    INTERFACE_COMPILE_OPTIONS "${_pencil_compile_options}"
    INTERFACE_LINK_DIRECTORIES "${PENCIL_LIBRARY_DIRS}"
    INTERFACE_LINK_LIBRARIES "${_pencil_link_libraries}")
endif()

function(pencil_add_sources outvar)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET" "SOURCES;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pencil_add_sources: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "pencil_add_sources: no SOURCES given")
  endif()

  set(flags ${arg_OPTIONS})
  if(NOT "${flags}" MATCHES "(^|;)-O")
    list(INSERT flags 0 -O3)
  endif()
  if(arg_TARGET)
    if(NOT TARGET "${arg_TARGET}")
      message(FATAL_ERROR "pencil_add_sources: TARGET ${arg_TARGET} is not a target")
    endif()
    set(includes "$<TARGET_PROPERTY:${arg_TARGET},INCLUDE_DIRECTORIES>")
    set(definitions "$<TARGET_PROPERTY:${arg_TARGET},COMPILE_DEFINITIONS>")
    list(APPEND flags "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
                      "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},$<SEMICOLON>-D>>")
    get_target_property(type "${arg_TARGET}" TYPE)
    if(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
      list(APPEND flags -fPIC)
    else()
      list(APPEND flags "$<$<BOOL:$<TARGET_PROPERTY:${arg_TARGET},POSITION_INDEPENDENT_CODE>>:-fPIC>")
    endif()
  elseif(CMAKE_POSITION_INDEPENDENT_CODE)
    list(APPEND flags -fPIC)
  endif()

  # pencilcc writes a dependency file (-MD); which generators can read one
  # depends on the CMake version.
  set(depfile_mode NONE)
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.21
     OR (CMAKE_VERSION VERSION_GREATER_EQUAL 3.20 AND CMAKE_GENERATOR MATCHES "Makefiles|Ninja"))
    set(depfile_mode DEPFILE)
  elseif(CMAKE_GENERATOR MATCHES "Ninja")
    set(depfile_mode DEPFILE_NINJA_RELATIVE)
  elseif(CMAKE_GENERATOR MATCHES "Makefiles")
    set(depfile_mode IMPLICIT)
  endif()

  # The command is global so that any directory below find_package() can call us.
  get_property(command GLOBAL PROPERTY PENCILCC_COMMAND)
  get_property(compiler_dependency GLOBAL PROPERTY PENCILCC_EXECUTABLE)

  set(objects "")
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    file(RELATIVE_PATH name "${CMAKE_CURRENT_SOURCE_DIR}" "${source}")
    if(name MATCHES "^\\.\\./" OR IS_ABSOLUTE "${name}")
      file(RELATIVE_PATH name "${CMAKE_CURRENT_BINARY_DIR}" "${source}")
      if(name MATCHES "^\\.\\./" OR IS_ABSOLUTE "${name}")
        string(MD5 folder "${source}")
        string(SUBSTRING "${folder}" 0 8 folder)
        get_filename_component(base "${source}" NAME)
        set(name "_external/${folder}/${base}")
      else()
        set(name "_binary/${name}")
      endif()
    endif()

    # One command per (source, flags): a second request for the same pair
    # reuses the object; the same source with other flags gets its own folder.
    string(MD5 key "${source};${arg_TARGET};${flags}")
    get_property(known DIRECTORY PROPERTY _PENCIL_OBJECT_KEYS)
    if(key IN_LIST known)
      get_property(object DIRECTORY PROPERTY "_PENCIL_OBJECT_${key}")
      list(APPEND objects "${object}")
      continue()
    endif()
    set(object "${CMAKE_CURRENT_BINARY_DIR}/pencil_objects/${name}.o")
    get_property(taken DIRECTORY PROPERTY _PENCIL_OBJECTS)
    if(object IN_LIST taken)
      string(SUBSTRING "${key}" 0 8 folder)
      set(object "${CMAKE_CURRENT_BINARY_DIR}/pencil_objects/${folder}/${name}.o")
    endif()
    set_property(DIRECTORY APPEND PROPERTY _PENCIL_OBJECT_KEYS "${key}")
    set_property(DIRECTORY APPEND PROPERTY _PENCIL_OBJECTS "${object}")
    set_property(DIRECTORY PROPERTY "_PENCIL_OBJECT_${key}" "${object}")

    string(REGEX REPLACE "\\.o$" "" stem "${object}")
    set(record "${stem}.opt.json")
    set(depfile "${stem}.d")
    get_filename_component(object_dir "${object}" DIRECTORY)
    file(MAKE_DIRECTORY "${object_dir}")

    set(dependency_args "")
    set(dependency_target "${object}")
    if(depfile_mode STREQUAL "DEPFILE")
      set(dependency_args DEPFILE "${depfile}")
    elseif(depfile_mode STREQUAL "DEPFILE_NINJA_RELATIVE")
      # Before policy CMP0116, Ninja reads the file as is: name the output as
      # build.ninja does, relative to the top build directory.
      file(RELATIVE_PATH dependency_target "${CMAKE_BINARY_DIR}" "${object}")
      set(dependency_args DEPFILE "${depfile}")
    elseif(depfile_mode STREQUAL "IMPLICIT")
      set(dependency_args IMPLICIT_DEPENDS C "${source}")
    endif()

    add_custom_command(
      OUTPUT "${object}"
      BYPRODUCTS "${record}"
      COMMAND ${command} ${flags} -fsave-optimization-record
              -MD -MF "${depfile}" -MT "${dependency_target}"
              -c "${source}" -o "${object}"
      DEPENDS "${source}" ${compiler_dependency}
      ${dependency_args}
      WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
      COMMENT "Building C object pencil_objects/${name}.o with pencilcc"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND objects "${object}")
  endforeach()

  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set(${outvar} "${objects}" PARENT_SCOPE)
endfunction()

set_property(GLOBAL PROPERTY PENCILCC_COMMAND "${PENCILCC_COMMAND}")
if(PENCILCC_EXECUTABLE)
  set_property(GLOBAL PROPERTY PENCILCC_EXECUTABLE "${PENCILCC_EXECUTABLE}")
endif()
set(PENCIL_FOUND TRUE)
string(REPLACE ";" " " _pencil_shown "${PENCILCC_COMMAND}")
find_package_message(PENCIL "Found PENCIL: ${_pencil_shown} (found version \"${PENCIL_VERSION}\")"
                     "[${PENCILCC_COMMAND}][${PENCIL_VERSION}][${PENCIL_INCLUDE_DIRS}]")

cmake_policy(POP)
