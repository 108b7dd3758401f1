# The plugin SDK as a kernel author outside this tree uses it: `cmake --install` puts
# vsa/plugin.h, vsa/probe.cuh and the CMake package in a prefix; a separate project finds
# it (find_package(vsa-bench)), builds a plugin with vsa_add_plugin, and vsa-bench loads it.
source "$(dirname "$0")/lib.sh"
BUILD="$(dirname "$(readlink -f "$BIN")")"
cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fail "cmake --install"; }
for f in include/vsa/plugin.h include/vsa/probe.cuh lib/cmake/vsa-bench/vsa-benchConfig.cmake \
         lib/cmake/vsa-bench/VsaPlugin.cmake bin/vsa-bench; do
  [ -f "$WORK/prefix/$f" ] || fail "the install lacks $f"
done
mkdir -p "$WORK/mine"
cp "$SRC/examples/plugins/cpu_forward.cpp" "$WORK/mine/"
# An external function a plugin's own files share: it must stay inside the library.
echo 'int mine_helper(int x) { return x + 1; }' >"$WORK/mine/helper.cpp"
cat >"$WORK/mine/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(mine LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(vsa-bench REQUIRED)
vsa_add_plugin(mine SOURCES cpu_forward.cpp helper.cpp)
CMAKE
cmake -S "$WORK/mine" -B "$WORK/mine/build" -DCMAKE_PREFIX_PATH="$WORK/prefix" >"$WORK/cfg.log" 2>&1 \
  || { cat "$WORK/cfg.log"; fail "configure of a project using find_package(vsa-bench)"; }
cmake --build "$WORK/mine/build" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "build of the plugin"; }
[ -f "$WORK/mine/build/mine.so" ] || fail "vsa_add_plugin did not make mine.so"
# Only the entry point is exported (hidden visibility, version script): two plugins never
# interpose symbols. Every defined dynamic symbol counts, weak ones (W) too.
exported="$(nm -D --defined-only "$WORK/mine/build/mine.so" | awk '{print $3}')"
[ "$exported" = "vsa_plugin_entry" ] || fail "mine.so exports more than vsa_plugin_entry: $exported"
# The same with a CUDA source that uses <iostream>: nvcc gets no -fvisibility-inlines-hidden, so
# without the SDK's version script libstdc++'s inline std::ctype<char>::do_widen leaks out weak.
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
if [ -x "$NVCC" ]; then
  mkdir -p "$WORK/mine_cuda"
  cp "$SRC/examples/plugins/cpu_forward.cpp" "$WORK/mine_cuda/"
  cat >"$WORK/mine_cuda/report.cu" <<'CU'
#include <iostream>
__global__ void touch(int* p) { *p = 1; }
int mine_report(int x) { std::cout << "mine " << x << std::endl; return x; }
CU
  cat >"$WORK/mine_cuda/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(mine_cuda LANGUAGES CXX CUDA)
set(CMAKE_CXX_STANDARD 20)
find_package(vsa-bench REQUIRED)
vsa_add_plugin(mine_cuda SOURCES cpu_forward.cpp report.cu CUDA_ARCHITECTURES 90-real)
CMAKE
  cmake -S "$WORK/mine_cuda" -B "$WORK/mine_cuda/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC"     -DCMAKE_PREFIX_PATH="$WORK/prefix" >"$WORK/cfg_cuda.log" 2>&1 || { cat "$WORK/cfg_cuda.log"; fail "configure (CUDA)"; }
  cmake --build "$WORK/mine_cuda/build" >"$WORK/build_cuda.log" 2>&1 || { cat "$WORK/build_cuda.log"; fail "build (CUDA)"; }
  exported="$(nm -D --defined-only "$WORK/mine_cuda/build/mine_cuda.so" | awk '{print $3}')"
  [ "$exported" = "vsa_plugin_entry" ] || fail "mine_cuda.so (a .cu with <iostream>) exports more than vsa_plugin_entry: $exported"
else
  echo "note: no nvcc here, the CUDA export check was not run"
fi
"$WORK/prefix/bin/vsa-bench" list backends --plugin "$WORK/mine/build/mine.so" --format json >"$WORK/out" 2>"$WORK/err" \
  || { cat "$WORK/err"; fail "the installed vsa-bench does not load the plugin"; }
[ "$(json_get "$WORK/out" "[b['name'] for b in d['backends'] if b['name']=='example-cpu']")" = "['example-cpu']" ] \
  || fail "the plugin's backend is not listed"
echo "ok"
