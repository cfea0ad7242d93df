# The flags an instrumented program needs, shared by the build tree
# (cmake/XRayPackage.cmake) and the installed package (XRayConfig.cmake), so
# both spell them the same way.
#
# Nothing in an instrumented object names the runtime (sleds are nops until
# patched), so libxray.a must be linked whole; the "no link deps" flag keeps
# the clang driver from also linking compiler-rt's XRay runtime beside ours.

# C and C++ only: assembler sources of the same target take no such flag.
set(XRAY_INSTRUMENT_COMPILE_OPTIONS "$<$<COMPILE_LANGUAGE:C,CXX>:-fxray-instrument>")

# xray_no_link_deps_flag(COMPILER OUTVAR): the spelling COMPILER accepts.
# clang 13-16 know only -fnoxray-link-deps, clang 19 only -fno-xray-link-deps,
# and each rejects the other, so ask the driver (a dry run, nothing is built).
# Empty when COMPILER is not a clang that has either.
function(xray_no_link_deps_flag compiler out)
  foreach(flag -fno-xray-link-deps -fnoxray-link-deps)
    execute_process(
      COMMAND ${compiler} -fxray-instrument ${flag} "-###" -x c /dev/null -o /dev/null
      RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
    if(rc EQUAL 0 AND NOT text MATCHES "clang_rt\\.xray")
      set(${out} ${flag} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# xray_instrument_link_options(OUTVAR): link options for the project's
# compiler (C if enabled, else C++).
function(xray_instrument_link_options out)
  if(CMAKE_C_COMPILER_LOADED)
    set(compiler ${CMAKE_C_COMPILER})
  else()
    set(compiler ${CMAKE_CXX_COMPILER})
  endif()
  if(NOT DEFINED XRAY_NO_LINK_DEPS_FLAG)
    xray_no_link_deps_flag("${compiler}" flag)
    set(XRAY_NO_LINK_DEPS_FLAG "${flag}" CACHE STRING
        "Driver flag that stops clang linking compiler-rt's XRay runtime")
  endif()
  if(XRAY_NO_LINK_DEPS_FLAG)
    set(${out} -fxray-instrument ${XRAY_NO_LINK_DEPS_FLAG} PARENT_SCOPE)
  else()
    # Not a clang driver we know: link without -fxray-instrument, which also
    # keeps any compiler-rt XRay runtime out.
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# xray_link_whole_archive(TARGET ARCHIVE): TARGET (an INTERFACE target) links
# ARCHIVE (a static library target) with every member kept. Set
# XRAY_WHOLE_ARCHIVE_BY_FLAGS to use the pre-3.24 spelling on any CMake (the
# package tests do, so the fallback stays tested).
function(xray_link_whole_archive target archive)
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.24 AND NOT XRAY_WHOLE_ARCHIVE_BY_FLAGS)
    target_link_libraries(${target} INTERFACE
      "$<LINK_LIBRARY:WHOLE_ARCHIVE,${archive}>")
  else()
    # Older CMake: bracket the archive by hand (GNU ld, gold and lld).
    target_link_libraries(${target} INTERFACE
      -Wl,--whole-archive ${archive} -Wl,--no-whole-archive)
  endif()
endfunction()

# xray_export_link_options(DYNLIST OUTVAR): the executable exports the
# runtime's symbols (DYNLIST is xray.dynlist) so that instrumented shared
# objects loaded with dlopen find __xray_register_dso (GNU ld, gold, lld).
function(xray_export_link_options dynlist out)
  set(${out} "LINKER:--dynamic-list=${dynlist}" PARENT_SCOPE)
endfunction()
