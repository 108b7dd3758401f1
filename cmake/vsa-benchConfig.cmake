# find_package(vsa-bench) in an installed tree: the plugin SDK (VsaPlugin.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/VsaPlugin.cmake")
