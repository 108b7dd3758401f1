# The vsa-bench plugin SDK for CMake (docs/plugins.md, README "Test your own kernel").
#
#   include(/path/to/vsa-bench/cmake/VsaPlugin.cmake)       # from a checkout, or
#   find_package(vsa-bench REQUIRED)                         # once installed (cmake --install)
#   vsa_add_plugin(my_kernels SOURCES my_plugin.cu [CUDA_ARCHITECTURES 90a 100a] [LINK other_targets])
#
# makes my_kernels.so: a module with vsa/plugin.h and vsa/probe.cuh on its include path,
# only vsa_plugin_entry exported (hidden visibility and a linker version script for everything
# else, so two plugins never interpose symbols), unresolved symbols an error at link time instead of at load
# time, and the CUDA runtime linked statically, so the .so runs wherever vsa-bench runs
# (a driver, no toolkit). Load it with `vsa-bench run --plugin my_kernels.so`.

# The SDK headers: kernels/include in a checkout, include/ in an installed tree.
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../kernels/include/vsa/plugin.h")
  set(VSA_PLUGIN_INCLUDE_DIR "${CMAKE_CURRENT_LIST_DIR}/../kernels/include")
elseif(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../../../include/vsa/plugin.h")
  set(VSA_PLUGIN_INCLUDE_DIR "${CMAKE_CURRENT_LIST_DIR}/../../../include")
else()
  message(FATAL_ERROR "VsaPlugin.cmake: cannot find vsa/plugin.h next to ${CMAKE_CURRENT_LIST_DIR}")
endif()
get_filename_component(VSA_PLUGIN_INCLUDE_DIR "${VSA_PLUGIN_INCLUDE_DIR}" ABSOLUTE)

function(vsa_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;CUDA_ARCHITECTURES;LINK" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "vsa_add_plugin(${name}): SOURCES is empty")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE "${VSA_PLUGIN_INCLUDE_DIR}")
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CUDA" IN_LIST languages)
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Static)
    if(ARG_CUDA_ARCHITECTURES)
      set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${ARG_CUDA_ARCHITECTURES}")
    endif()
  elseif(ARG_CUDA_ARCHITECTURES)
    message(FATAL_ERROR "vsa_add_plugin(${name}): CUDA_ARCHITECTURES given but the CUDA language is not enabled")
  endif()
  if(NOT APPLE)
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
    # Hidden visibility alone does not hide everything: nvcc gets no -fvisibility-inlines-hidden
    # from CMake, so a .cu file that uses <iostream> exports libstdc++'s inline functions
    # (e.g. std::ctype<char>::do_widen) as weak symbols. The version script keeps the promise.
    set(map "${CMAKE_BINARY_DIR}/vsa_plugin_exports.map")
    if(NOT EXISTS "${map}")
      file(WRITE "${map}" "{\n  global: vsa_plugin_entry;\n  local: *;\n};\n")
    endif()
    target_link_options(${name} PRIVATE "LINKER:--version-script=${map}")
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${map}")
  endif()
  if(ARG_LINK)
    target_link_libraries(${name} PRIVATE ${ARG_LINK})
  endif()
endfunction()
