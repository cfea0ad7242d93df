# How other projects consume the runtime: the XRay::xray target (build tree,
# for add_subdirectory users), the install rules, the CMake package and the
# pkg-config file. Included from the top-level CMakeLists.txt after lib/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
include(${CMAKE_CURRENT_LIST_DIR}/XRayLinkFlags.cmake)
find_package(Threads REQUIRED) # lib/ found it too, but in its own scope

# --- a clear word when the compiler cannot instrument --------------------
# The archive itself builds with gcc; only instrumented programs need clang.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  find_program(XRAY_CLANG_ON_PATH NAMES clang clang-14 clang-19 clang-16 clang-13)
  if(XRAY_CLANG_ON_PATH)
    set(_xray_what "instrumented tests and examples are built with ${XRAY_CLANG_ON_PATH}")
  else()
    set(_xray_what "no clang found on PATH, so instrumented tests and examples "
                   "will be skipped: install it (Debian: apt-get install clang llvm)")
  endif()
  message(STATUS "XRay: C compiler is ${CMAKE_C_COMPILER_ID}, which has no "
    "-fxray-instrument. libxray.a still builds with it; ${_xray_what}. Programs "
    "linking XRay::xray must be compiled with clang (-DCMAKE_C_COMPILER=clang).")
  unset(_xray_what)
endif()

# --- build tree: XRay::xray for add_subdirectory() users ------------------
add_library(xray_instrumented INTERFACE)
target_compile_options(xray_instrumented INTERFACE ${XRAY_INSTRUMENT_COMPILE_OPTIONS})
xray_instrument_link_options(XRAY_INSTRUMENT_LINK_OPTIONS)
target_link_options(xray_instrumented INTERFACE ${XRAY_INSTRUMENT_LINK_OPTIONS})
xray_export_link_options(${CMAKE_CURRENT_LIST_DIR}/xray.dynlist XRAY_EXPORT_LINK_OPTIONS)
target_link_options(xray_instrumented INTERFACE ${XRAY_EXPORT_LINK_OPTIONS})
xray_link_whole_archive(xray_instrumented xray)
target_include_directories(xray_instrumented INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${XRAY_GENERATED_INCLUDE_DIR}>)
target_link_libraries(xray_instrumented INTERFACE Threads::Threads)
add_library(XRay::xray ALIAS xray_instrumented)
add_library(XRay::archive ALIAS xray)

# XRay::host: a program not instrumented itself (an interpreter) that hosts
# instrumented shared objects: libxray.a whole and exported, no
# -fxray-instrument.
add_library(xray_host INTERFACE)
target_link_options(xray_host INTERFACE ${XRAY_EXPORT_LINK_OPTIONS})
xray_link_whole_archive(xray_host xray)
target_include_directories(xray_host INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${XRAY_GENERATED_INCLUDE_DIR}>)
target_link_libraries(xray_host INTERFACE Threads::Threads)
add_library(XRay::host ALIAS xray_host)

# XRay::xray_dso: for each instrumented shared object (libxray-dso.a whole).
add_library(xray_dso_instrumented INTERFACE)
target_compile_options(xray_dso_instrumented INTERFACE ${XRAY_INSTRUMENT_COMPILE_OPTIONS})
target_link_options(xray_dso_instrumented INTERFACE ${XRAY_INSTRUMENT_LINK_OPTIONS})
xray_link_whole_archive(xray_dso_instrumented xray_dso)
target_include_directories(xray_dso_instrumented INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${XRAY_GENERATED_INCLUDE_DIR}>)
add_library(XRay::xray_dso ALIAS xray_dso_instrumented)
add_library(XRay::dso_archive ALIAS xray_dso)

# --- install ---------------------------------------------------------------
# On by default when this is the top-level project; a parent project that uses
# add_subdirectory() decides for itself.
if(CMAKE_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR)
  set(_xray_top ON)
else()
  set(_xray_top OFF)
endif()
option(XRAY_INSTALL "Install libxray.a, headers, CMake package and xray.pc" ${_xray_top})
unset(_xray_top)
if(NOT XRAY_INSTALL)
  return()
endif()
set(XRAY_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(XRAY_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
set(XRAY_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/XRay)
set(XRAY_ARCHIVE_FILE
  ${CMAKE_STATIC_LIBRARY_PREFIX}xray${CMAKE_STATIC_LIBRARY_SUFFIX})

set(XRAY_DSO_ARCHIVE_FILE
  ${CMAKE_STATIC_LIBRARY_PREFIX}xray-dso${CMAKE_STATIC_LIBRARY_SUFFIX})

install(TARGETS xray xray_dso ARCHIVE DESTINATION ${XRAY_INSTALL_LIBDIR})
install(TARGETS xrayctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_CURRENT_LIST_DIR}/xray.dynlist DESTINATION ${XRAY_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/xray
        DESTINATION ${XRAY_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# The one generated header (its template, xray_version.h.in, stays behind).
install(FILES ${XRAY_GENERATED_INCLUDE_DIR}/xray/xray_version.h
        DESTINATION ${XRAY_INSTALL_INCLUDEDIR}/xray)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/XRayConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/XRayConfig.cmake
  INSTALL_DESTINATION ${XRAY_INSTALL_CMAKEDIR}
  PATH_VARS XRAY_INSTALL_LIBDIR XRAY_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/package/XRayConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/package/XRayConfig.cmake
  ${PROJECT_BINARY_DIR}/package/XRayConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/XRayLinkFlags.cmake
  DESTINATION ${XRAY_INSTALL_CMAKEDIR})

# pkg-config: relocatable, the prefix is found from the .pc file's own place.
# pkg-config has no conditionals, so the "no link deps" spelling is the one
# the clang found now accepts; users of another clang override the variable
# (pkg-config --define-variable=xray_no_link_deps=-fno-xray-link-deps).
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(_xray_pc_clang ${CMAKE_C_COMPILER})
else()
  set(_xray_pc_clang ${XRAY_CLANG_ON_PATH})
endif()
set(XRAY_PC_NO_LINK_DEPS -fno-xray-link-deps) # newest spelling when no clang
if(_xray_pc_clang)
  xray_no_link_deps_flag(${_xray_pc_clang} _xray_flag)
  if(_xray_flag)
    set(XRAY_PC_NO_LINK_DEPS ${_xray_flag})
  endif()
endif()
unset(_xray_pc_clang)
unset(_xray_flag)
file(RELATIVE_PATH XRAY_PC_PREFIX_FROM_PCDIR
  /prefix/${XRAY_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" XRAY_PC_PREFIX_FROM_PCDIR "${XRAY_PC_PREFIX_FROM_PCDIR}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/xray.pc.in
               ${PROJECT_BINARY_DIR}/package/xray.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/xray-dso.pc.in
               ${PROJECT_BINARY_DIR}/package/xray-dso.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/xray.pc ${PROJECT_BINARY_DIR}/package/xray-dso.pc
        DESTINATION ${XRAY_INSTALL_LIBDIR}/pkgconfig)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
