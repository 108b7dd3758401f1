#!/usr/bin/env bash
# Build the fastvideo-tk plugin with nvcc alone (no CMake, no torch): one .so for sm_90a.
#   peers/fastvideo_tk/build.sh [UPSTREAM_DIR [OUT_DIR]]
# UPSTREAM_DIR: what scripts/peers/fetch_fastvideo_tk.sh wrote (default .peers/fastvideo_tk);
# OUT_DIR: where fastvideo_tk_h100.so goes (default UPSTREAM_DIR/build). nvcc: $NVCC, else
# PATH, else /usr/local/cuda/bin. Prints the .so's path last. The link mirrors
# cmake/VsaPlugin.cmake's vsa_add_plugin: hidden visibility, only vsa_plugin_entry exported,
# --no-undefined, static CUDA runtime (runs where only a driver is installed).
# shellcheck disable=SC2317  # the pinned list after `exit 0` at the end is data, never run
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SRC="$(cd "$HERE/../.." && pwd)"
UP="${1:-$SRC/.peers/fastvideo_tk}"
OUT="${2:-$UP/build}"
[ -f "$UP/UPSTREAM" ] || { echo "build.sh: no $UP/UPSTREAM: run scripts/peers/fetch_fastvideo_tk.sh first" >&2; exit 2; }
UP="$(cd "$UP" && pwd)"

# What the build was tested with, pinned here (not taken from the fetched UPSTREAM): the commits,
# the FastVideo file's git blob id and sha256, and a sha256 over ThunderKittens' include/: the
# `sha256sum` lines of every file under include/ (paths relative to ThunderKittens/, sorted
# bytewise), hashed again. That list is at the end of this file, to name the file that differs.
# Checked with sha256sum (or shasum -a 256) alone, so on a GPU node without git or the mirrors;
# git, where present, also checks the blob id. To move the pins: fetch the new commits, then
#   (cd .peers/fastvideo_tk/ThunderKittens && find include ! -type d -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
# is the list, its sha256 pinned_tk_include, and git hash-object / sha256sum of the .cu the rest.
pinned_fv=2f3d4074064e4d86f99dc784ebbaa296e6f5925f pinned_tk=6c27e28c8115d1839d9eeeb530913c184a75fc87
pinned_fv_file=fastvideo-kernel/csrc/attention/block_sparse_h100.cu
pinned_fv_blob=e561e5ac74b71feead9d9b762334b7ced81c4d99
pinned_fv_sha256=ddc254edccd0e4f9c4b94a14cc2627407aab80e5764dad9df57b4060ceba5c9e
pinned_tk_include=3b0270a0dbc9efb3ab9ee21f264333ef12882ef7acd4afaa7b4002979b9e5de1

# UPSTREAM is read, never sourced: KEY=VALUE lines, VALUE of [0-9A-Za-z_./-] only.
upstream() {
  local v
  v="$(sed -n "s|^$1=\([0-9A-Za-z_./-]*\)\$|\1|p" "$UP/UPSTREAM")"
  [ -n "$v" ] && [ "$(printf '%s\n' "$v" | wc -l)" -eq 1 ] \
    || { echo "build.sh: $UP/UPSTREAM has no single well-formed $1= line: fetch again" >&2; exit 2; }
  printf '%s' "$v"
}
fastvideo_commit="$(upstream fastvideo_commit)"; thunderkittens_commit="$(upstream thunderkittens_commit)"
[ "$fastvideo_commit" = "$pinned_fv" ] && [ "$thunderkittens_commit" = "$pinned_tk" ] \
  || { echo "build.sh: $UP holds FastVideo $fastvideo_commit / ThunderKittens $thunderkittens_commit, not the pinned $pinned_fv / $pinned_tk: fetch again" >&2; exit 2; }

if command -v sha256sum >/dev/null; then SHA256=(sha256sum)
elif command -v shasum >/dev/null; then SHA256=(shasum -a 256)
else echo "build.sh: neither sha256sum nor shasum found: cannot check the fetched sources (install coreutils)" >&2; exit 2; fi
sha256() { "${SHA256[@]}"; }   # stdin -> "<sha256>  -"

fv="$UP/FastVideo/$pinned_fv_file"
[ -f "$fv" ] || { echo "build.sh: $fv is missing: fetch again" >&2; exit 2; }
fv_sha="$(sha256 < "$fv" | cut -d' ' -f1)"
[ "$fv_sha" = "$pinned_fv_sha256" ] \
  || { echo "build.sh: $fv differs from the pinned one (sha256 $fv_sha, pinned $pinned_fv_sha256): fetch again" >&2; exit 2; }
if command -v git >/dev/null; then
  blob="$(git hash-object "$fv")"
  [ "$blob" = "$pinned_fv_blob" ] \
    || { echo "build.sh: $fv differs from the pinned one (git blob $blob, pinned $pinned_fv_blob): fetch again" >&2; exit 2; }
  echo "checked: $pinned_fv_file (sha256 and git blob $pinned_fv_blob)"
else
  echo "checked: $pinned_fv_file (sha256; no git here, so not its blob id)"
fi

[ -d "$UP/ThunderKittens/include" ] || { echo "build.sh: $UP/ThunderKittens/include is missing: fetch again" >&2; exit 2; }
listed="$(cd "$UP/ThunderKittens" && find include ! -type d -print0 | LC_ALL=C sort -z | xargs -0 -r "${SHA256[@]}")" \
  || { echo "build.sh: cannot hash the files of $UP/ThunderKittens/include" >&2; exit 2; }
tk_sha="$(printf '%s\n' "$listed" | sha256 | cut -d' ' -f1)"
if [ "$tk_sha" != "$pinned_tk_include" ]; then
  echo "build.sh: $UP/ThunderKittens/include differs from the pinned tree (sha256 $tk_sha, pinned $pinned_tk_include): fetch again" >&2
  pinned_list="$(sed -n '/^__THUNDERKITTENS_INCLUDE_SHA256__$/,$p' "$0" | tail -n +2)"
  [ "$(printf '%s\n' "$pinned_list" | sha256 | cut -d' ' -f1)" = "$pinned_tk_include" ] \
    || echo "build.sh: (the list at the end of build.sh does not hash to pinned_tk_include either: the pins need fixing)" >&2
  # Per file: 'differs', 'missing' (pinned, not fetched) or 'not pinned' (fetched, not in the list).
  LC_ALL=C join -j 2 -a 1 -a 2 -e - -o 0,1.1,2.1 \
    <(printf '%s\n' "$pinned_list" | LC_ALL=C sort -k 2) <(printf '%s\n' "$listed" | LC_ALL=C sort -k 2) \
    | awk -v up="$UP/ThunderKittens" '$2 != $3 { why = $3 == "-" ? "missing" : $2 == "-" ? "not pinned" : "differs";
                                            printf "build.sh:   %s/%s: %s\n", up, $1, why }' >&2
  exit 2
fi
echo "checked: ThunderKittens/include ($(printf '%s\n' "$listed" | wc -l) files, sha256 $tk_sha)"

NVCC="${NVCC:-$(command -v nvcc || true)}"
[ -n "$NVCC" ] || NVCC=/usr/local/cuda/bin/nvcc
[ -x "$NVCC" ] || { echo "build.sh: no nvcc (set NVCC, PATH or install CUDA in /usr/local/cuda)" >&2; exit 2; }
nvcc_version="$("$NVCC" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')"
echo "nvcc: $NVCC ($nvcc_version; $("$NVCC" --version | tail -1))"

# The flags of the recorded build (results/baselines/h200-tk-plugin.md), recorded again in the
# plugin's build information.
FLAGS="-DNDEBUG -O3 -std=c++20 --use_fast_math --expt-extended-lambda --expt-relaxed-constexpr -Xcompiler=-fno-strict-aliasing -DKITTENS_HOPPER -Xptxas=--warn-on-spills"
mkdir -p "$OUT"
map="$OUT/exports.map"
printf '{\n  global: vsa_plugin_entry;\n  local: *;\n};\n' > "$map"
so="$OUT/fastvideo_tk_h100.so"
# Include order matters: torch_stub/ first, so the torch header names in the upstream file
# reach the stand-ins (torch_stub/fastvideo_tk_torch_stub.h); then ThunderKittens, then
# FastVideo's csrc/ for "attention/block_sparse_h100.cu".
log="$OUT/build.log"
# shellcheck disable=SC2086
if ! "$NVCC" $FLAGS -gencode arch=compute_90a,code=sm_90a \
  -shared -Xcompiler=-fPIC,-fvisibility=hidden,-fvisibility-inlines-hidden --cudart static \
  -I "$HERE/torch_stub" -I "$UP/ThunderKittens/include" -I "$UP/FastVideo/fastvideo-kernel/csrc" \
  -I "$SRC/kernels/include" \
  -DFVTK_FASTVIDEO_COMMIT="\"$fastvideo_commit\"" -DFVTK_TK_COMMIT="\"$thunderkittens_commit\"" \
  -DFVTK_FLAGS="\"$FLAGS\"" -DFVTK_NVCC="\"$nvcc_version\"" \
  -Xlinker --no-undefined -Xlinker "--version-script=$map" \
  -o "$so" "$HERE/fastvideo_tk_plugin.cu" > "$log" 2>&1; then
  cat "$log"; echo "build.sh: nvcc failed" >&2; exit 1
fi
cat "$log"
# Warning-free but for one line: ptxas' report (asked for by --warn-on-spills) that upstream's
# bwd_attend_ker<64> spills a few bytes, as in the recorded build; any other warning fails.
unexpected="$(grep -i 'warning' "$log" | grep -v "^ptxas warning : Registers are spilled to local memory in function '_Z14bwd_attend_kerILi64EEv11bwd_globalsIXT_EE'" || true)"
if [ -n "$unexpected" ]; then
  echo "build.sh: unexpected warnings (the build must be warning-free but for the known upstream spill):" >&2
  echo "$unexpected" >&2; exit 1
fi
echo "$so"
exit 0
# The pinned ThunderKittens include/ list (its sha256 is pinned_tk_include); never executed.
__THUNDERKITTENS_INCLUDE_SHA256__
4537822ebb354f3779be7a4c3227802e76527e2bd358b39d18695b6aa11b76ce  include/common/base_ops.cuh
d34e107983c9643d4256c22522f1536a7ab3a5f6ea506aaf4a5c0584017a121a  include/common/base_types.cuh
ee66f4c51eb00d4739bf5490120f99faba6e8345f41187ec2c6bbe084e5b72b0  include/common/common.cuh
0924809d50559ecedbff73ce6c8643034644258b55610123905074cc073bac0c  include/common/debug.cuh
ebf35439cf93bd26441714656f1d0003df9a285b2e2d50678da58b05709a046c  include/common/util.cuh
d7a9e0a36e23834509ac63337ab161f2a4c5356723bef71784d48b00faf13677  include/kittens.cuh
b22eaece806eafad36576e49efc3db8607dd0970a7349032eb8bc126365edf74  include/ops/gang/gang.cuh
f76b9a1786cec6dbe612bc1049a62099c2ed9ff1512793728304e7f652c105b6  include/ops/group/group.cuh
1962ac280c6be0b288d979aca01fe3ee89a94823c79a2c9ef6aa5aa1141aef18  include/ops/group/memory/memory.cuh
04233a64cb27a3509e28efe5051ae5372e7ede7e086cd78607bf492e1ae9dd42  include/ops/group/memory/tile/complex/complex_global_to_register.cuh
2f7fb802ef46cb9362e35d402b4f3711a5f435e4738d703ea06fe6fdf23a5dfe  include/ops/group/memory/tile/complex/complex_global_to_shared.cuh
62d4db32b771f9d560f17534c66d8831f673baf08ae4d085a53d5ce9fa11768c  include/ops/group/memory/tile/complex/complex_shared_to_register.cuh
16ed0fd24add326698ba9a7d782d525fe2b61da093289bb4a88bcbcd13f5d9a5  include/ops/group/memory/tile/global_to_register.cuh
fc154ff1977005e2a0f5340f6500b7a7c1046b4fdde96dbdc49db9a69dcb4688  include/ops/group/memory/tile/global_to_shared.cuh
6f866a0cb1c926823184df4cd52d61c1c3f35c6586b518836457c79e9f191dea  include/ops/group/memory/tile/pgl_to_register.cuh
a309b5e7f03d396e3bf8f4d93ce6f4b25e45956930b9119615ac545eef4878c3  include/ops/group/memory/tile/pgl_to_shared.cuh
8e514af56ae7341c5631656ed82a316fa926dcb155b0140ee3099f2039242fd7  include/ops/group/memory/tile/shared_to_register.cuh
47c03a2ee8716b28798cfccb1d6f8518a552a91db39e3de0f81e0553aa29307c  include/ops/group/memory/tile/tile.cuh
c093345c29427dc03055bb624b683e52c8f3e951e91ef7cd4e6133d924489776  include/ops/group/memory/util/util.cuh
70bd1a7a6d671ddc587a3b2c8b59e0dfc358c384642ea3fa85f025f306497ffd  include/ops/group/memory/vec/global_to_register.cuh
2f94da7415ee739f9c3efa6778246ce818ce6077ae6c1b2a2e3a5f6dabe88c55  include/ops/group/memory/vec/global_to_shared.cuh
e45e22b3461e4c58c5dc309e65cdc4c7fef504daeeedc18f834895aedb6a9442  include/ops/group/memory/vec/pgl_to_register.cuh
f38c955d98cfebcef2e987ecf24926e5b3db2441325ee8a3f648caf6afe1f563  include/ops/group/memory/vec/pgl_to_shared.cuh
b5b2d98152c2a1373c48df2748a63ff4cde0537202c56a1d637d1012cad1e027  include/ops/group/memory/vec/shared_to_register.cuh
814bebae845e2f7b6fe071f72acf00d7809373eaa07ab1f6cdd02f47b26e6809  include/ops/group/memory/vec/vec.cuh
4bff093521df70c80f0682a1a418b2a223eda44bc32998f9609757e72140b900  include/ops/group/register/register.cuh
6a974fadef754ce96401139aa56966c36526c35b3e0e224f0d897ccff80f4d39  include/ops/group/register/tile/conversions.cuh
7ff2e1495a3350a533f297e1c3e087256320f5af33bf78e4fc65558ddcb2d15d  include/ops/group/register/tile/tile.cuh
30f76466d094e2de794b9fbd6a9030259d65bc0219a75b0a095ab6cd799da47f  include/ops/group/shared/shared.cuh
05fabe7ab21447c9ae1e780ce325f0c8bd73813a02b36edd4a305eb573d969cf  include/ops/group/shared/tile/conversions.cuh
f54c03f5d53c37aebec21dbcb150fdba5f234d710fce56de829fca366e69060f  include/ops/group/shared/tile/maps.cuh
52179be9ae55cca65c5baa66c869e36d0713e696eb2eecfeb2a74cd9fee0f672  include/ops/group/shared/tile/reductions.cuh
1a62630b1ca6a18a5d4230ce685ce4af2b17dfc83127bc798a3323434cc07c8d  include/ops/group/shared/tile/tile.cuh
272f60e390a5368e7cd051c374f1b191f2019ed13d7777ac0cc8325cbfd14550  include/ops/group/shared/vec/conversions.cuh
794075651fd562709e24481061aba13b6c682dd38f386282149a5582943f02c0  include/ops/group/shared/vec/maps.cuh
05bf15735b04b23e6f924a71ca4d592dd43e3da09a7890dde15f8afa28798273  include/ops/group/shared/vec/vec.cuh
a9aaff495dc01203d7703e90bc935fcdb1c5df389444c436c4c9b96280af6a01  include/ops/group/wgmma/base/64x112.impl
3e4289b5b804df791e834694d3d80f8169f5d8d11398ac9403e9143f6688e7d7  include/ops/group/wgmma/base/64x128.impl
32caa22b864a25809b5010847a1a3e6473e4029324f8a44854c3503820b6f61d  include/ops/group/wgmma/base/64x144.impl
026bcbd592559a85166a761c023837bb29b798fe10f106444309931fbbd27fa2  include/ops/group/wgmma/base/64x16.impl
1b5632e554e18b8d75006cd4e3767dc236621beebd336c4373479071cbe69078  include/ops/group/wgmma/base/64x160.impl
13db564d000d2b9105cd83c5a82bece3d401cf442d5d3f3105cbf966209034d6  include/ops/group/wgmma/base/64x176.impl
f5e01a7042dd1c8c1b0e754882177c4433d6398eacad564269bfbda13d3bd61f  include/ops/group/wgmma/base/64x192.impl
18285f84e7978678a1dc26d4c71ef7b6ef0fb6c3cade0e62db4a945c5f9169c8  include/ops/group/wgmma/base/64x208.impl
f0c77bf1acc790b4ef740cc85c07762aecef9c6f29b0ef31cb2d7752727cd9bb  include/ops/group/wgmma/base/64x224.impl
0210555fa309989ef50854476ec1d84edbd4d837ca5b2e8a809d4b67eb797d67  include/ops/group/wgmma/base/64x240.impl
7a9d28d9962b91e71aebcd05723104f4ff4217e3c4728a4512eac5fb55cfc498  include/ops/group/wgmma/base/64x256.impl
40b7ce914e7f54abf7bcda7834bf388722c72aca4362b5d41af29b40bd36a2d4  include/ops/group/wgmma/base/64x32.impl
0dfca5903898b10ee55c262cb71ab5df9a931b0e95c641bb49696c6388569c33  include/ops/group/wgmma/base/64x48.impl
2446cb3c4c468322d84a3282d3c8b4d6f80f3b41de5b95791692b8602031de31  include/ops/group/wgmma/base/64x64.impl
bd752a13579a9f3c88d390770777de99820998f80df12e1ca6c9ae08354507b1  include/ops/group/wgmma/base/64x80.impl
0f120f41b9cdd474a5149f60457e78b3b5b5f0361cd0546c5dcc88e45f986a4f  include/ops/group/wgmma/base/64x96.impl
8b002181d1dab0e80f84d9b2e36ca2edaa8a6781a33562653055a5ada45f241f  include/ops/group/wgmma/base/base.cuh
ecda479628959c17fffa74b3fdb6ae09be1da461c1c0a88359ca3b2caa7581f1  include/ops/group/wgmma/wgmma.cuh
7b5d3c5882e218b832d864a36510dde6813abd315116f715583186d50dcd07f0  include/ops/ops.cuh
237f28474d9892108da3ad6e7cee51b095858f89a2e5569a48a135a986d00a47  include/ops/warp/memory/memory.cuh
47422936c232ebe8cc681292877b5883f6807f356c4b18ff99e8a99fef04a8f0  include/ops/warp/memory/tile/complex/complex_global_to_register.cuh
57f1888c7ee87ff73496512ba61bcbfcb46f2ebdc096629f4aa5b034043f7361  include/ops/warp/memory/tile/complex/complex_global_to_shared.cuh
ab277618e55cb20949089830bfc6346a42d5b0f3d16d86f0c1f68799fdb30967  include/ops/warp/memory/tile/complex/complex_shared_to_register.cuh
b905a8b626da7e4f375a95d67a7fc6df1847af4c1b9a808318b6e5122ead263b  include/ops/warp/memory/tile/global_to_register.cuh
ac7faade8a14b041de70f08f8d8244688280321c525ccb2dea6f39ef0242b094  include/ops/warp/memory/tile/global_to_shared.cuh
13fbca10b8def94d6b1a413d8d4d71830e2f2e13f0122b3253582f66e70a84e6  include/ops/warp/memory/tile/pgl_to_register.cuh
c3dd25a64450e054f3723960b707e61398c56cbe69c98cd157aa845f4cb9287b  include/ops/warp/memory/tile/pgl_to_shared.cuh
301a60786f024d4025a449702a4fe8905bf4a0b622719e7cfa889b04cadf4147  include/ops/warp/memory/tile/shared_to_register.cuh
23e3346fcb7a30ba71bc47fa320db4ed3da5cdf071e36c648035bb5ff209cf4f  include/ops/warp/memory/tile/tile.cuh
abfbd5f068c39fe254842d9f288efae8ae9517606a347d4087472666f7d8a452  include/ops/warp/memory/tile/tma.cuh
62f893356f136aa375579278c067a86230ba8dee8dbfca03a96c177545d9ba52  include/ops/warp/memory/util/reduce.cuh
7d67c040bb68bed3b3ec1c9222d6676147fa916c3c80d80f49581bddb61f8116  include/ops/warp/memory/util/tma.cuh
b6c16c28900b4742387577ef89ce782b1f95b15e93c3d7c77d782ef688797edf  include/ops/warp/memory/util/util.cuh
0b5efe8ac022a083aa92559f6598f39a81a4ee71e427a75e7bce7f11d3daacc8  include/ops/warp/memory/vec/global_to_register.cuh
25eb85a68542c948b17d06dd4953b794132cb324482e06a110a4fc69be0347c4  include/ops/warp/memory/vec/global_to_shared.cuh
50e0db403bb89e5ec43683f7318a26b95ca812cbc127016047ee03d5cda0b350  include/ops/warp/memory/vec/pgl_to_register.cuh
7ef2d3d63a1cc1413fe6bc9a6259e0f9eb798082749a52059d3fc69f1e52121b  include/ops/warp/memory/vec/pgl_to_shared.cuh
86c12d724bc5b35ed102b4c8e03caffdc0e8328b9e484d53395c66b3d6df88f4  include/ops/warp/memory/vec/shared_to_register.cuh
2c7ee98a18b5dfa7bbd056c28f6f56bb9fb2aaea9fb0ff9e144ed5a24250a667  include/ops/warp/memory/vec/tma.cuh
3d5cf8221e4da8f45c4fea40a0250c6231d3f7708e595850263a4ae71c67ec30  include/ops/warp/memory/vec/vec.cuh
2f2b310b2760c25d255a9298db0e32da07f99cb7a3361934ecfa4e652189b79e  include/ops/warp/register/register.cuh
4cd5c698979c0d2e81c61545d1eaa6e587dc8585d73a656742dc4a1597ffaea9  include/ops/warp/register/tile/complex/complex_conversions.cuh
80468bdd3574c4b2cf42c038d113596d93f59c09831eb5e7b723c95dac1683f3  include/ops/warp/register/tile/complex/complex_maps.cuh
89811372f68f24a791a2bd953a2f39bd0eb651e38373311ea4415c868ec2fe2c  include/ops/warp/register/tile/complex/complex_mma.cuh
2078ac101dc1a8c95ab6fe84660946c6031844ea5e8aafc26ce61ac6b8263192  include/ops/warp/register/tile/conversions.cuh
9529f302a87dc1e85e5441446ca9b2cf7de8c5c36c658531af878a4b7135accc  include/ops/warp/register/tile/maps.cuh
f8235d23605aac383f9b75600cccb9572693638ed4a736ab1cc00830f58bf89d  include/ops/warp/register/tile/mma.cuh
82d639f150482afdd1fb5212ae6c1b4ab07670132593d30226e6a155eacc3fa3  include/ops/warp/register/tile/reductions.cuh
c73a46562d27d2e27ded88e4269f15d5064fc8b250573aade436638c26664424  include/ops/warp/register/tile/tile.cuh
9dbc774af7f74a9b54ef8b0f2a55cdc29798a50ed95010ea8ae3b43a9f7dc4ca  include/ops/warp/register/vec/conversions.cuh
bfdb1b6304adc63d70fba540fb393017a306f43da27a737e095d76c3b949d5aa  include/ops/warp/register/vec/maps.cuh
460e73a3a0e6042e01764eeb29857d76087d39b0e9f9a96d4ab9ae69f7f4c154  include/ops/warp/register/vec/reductions.cuh
99fa8b7e3bda1bebc9cf3a974b4b3ff2a24e1d497328b67529fdec6242dfaa5b  include/ops/warp/register/vec/vec.cuh
a94dd2790c82513de5f89195d0210ad4b81bdd9a3e03817bd32c5af6c62f6009  include/ops/warp/shared/shared.cuh
69197ed7063d9e3a8fb45706b554439301c10a97a63c39c266552dfb91a7bacb  include/ops/warp/shared/tile/conversions.cuh
0eb7cd68dd3e0d1ee27a82fa78d4581f3a90a95926aeb26946a71d53e16ceffe  include/ops/warp/shared/tile/maps.cuh
126249609cf288e2434ebe08b142ea45628f5abf15c7ca36fd85728aec3d4892  include/ops/warp/shared/tile/reductions.cuh
9997263442de2d3e9fddd1b25ede9df04e5cd21169ddf32ac400d8cb726a2c8e  include/ops/warp/shared/tile/tile.cuh
3838bd2f9fa54b2109a0379153cee586fd36d7ea6b1cbd1f94ad7ed15d6a040d  include/ops/warp/shared/vec/conversions.cuh
3656be065f388fb2ed636e5237dbc3e151f5f7cdf01b2854b1f5c840e56e4b8b  include/ops/warp/shared/vec/maps.cuh
18a915da20398cc8ebd25a04b4f31f05fa9a1c4bc67ea964f5575dd58f57016d  include/ops/warp/shared/vec/reductions.cuh
6ebfc5a933909b8065f28ba3ae65f0de8a056b039ec2bb8ff7d530f8f6220d5e  include/ops/warp/shared/vec/vec.cuh
e38ac9e3c45279363c6db861cf9a786d9df1be635e1786d3c1bb204401c206a5  include/ops/warp/warp.cuh
5f6fcff2b77375066139990391ed7737c19e5219cbe4cdb0ee6b82f6750990a9  include/pyutils/club.cuh
bd1ab9b8fe12b0316c038e0575faa22ddde953be8350b41b12853a05dfb97373  include/pyutils/pyutils.cuh
d8aea826ac33d0e1c0e057d3f5585f0d5b9bd51b6e0fac18b68ecbdaca68afc7  include/pyutils/torch_helpers.cuh
4c2834600e4f0e727af3599132dd1a4ff940088517bf7eb665eaac409385439a  include/pyutils/util.cuh
b0d13a588ae1294b4760a5094f668df807ce805430647dcebb08dbcb41fad0fe  include/types/device/detail/helpers.cuh
6831d869d808cec831006b49542c46e646bc928742560a937f48ca33a39524c2  include/types/device/device.cuh
79b973e08fac6ddf88391011e9f670341e5448baffff24880b6a927fa92e5698  include/types/device/pgl.cuh
7cc6716d2ba8c336f8d2a498784bd7f6f7062ff190ca83bcd1bcd05f7986622b  include/types/device/sync_manager.cuh
05eca00a40f2504ad886c2002f1c465bf6a9fdb0395b7e05058dc7b29c49cfe2  include/types/global/cgl.cuh
f2f983e78f6c605cf364eae3c839c56db0309e5f503dd0849ce496e5b39451fa  include/types/global/gl.cuh
3d1a8bedc83149a336ef70fae6ca411074885952d3bd8365c220f32f72de5616  include/types/global/global.cuh
eef62260c6e18eafd2c29823d72543933726093f0e496d3b2a1fe35dc64f5e53  include/types/global/tma.cuh
e6393e7b4f3c41781e8b052d6396704b3c007258890222c6d3ef791b8d549b61  include/types/global/util.cuh
c376a18576fe72cc1b99535bf438f9e06f247310773969a4d7ddfa61761c0c01  include/types/register/crt.cuh
342996a4bbffa22f891f1b929e069fd0f29bc33af17e56181bcf13f2981a90bf  include/types/register/crv.cuh
5102ec7e7aa6b66312297c24f7df9b27395e9122fe549fc024b0bf8d17b8d666  include/types/register/register.cuh
de670c88656b74d81b2bbd9bc8f82f70acc50722c8830ca9a1c165a41d7b5a6e  include/types/register/rt.cuh
91425f5bb697c07f80abbae9b4116096d9deaceaeef0401e347c76916e645f10  include/types/register/rt_base.cuh
8f27d8b9f3516269b09b24195eb2fb382fd63daf770534b6285696c925d649b6  include/types/register/rt_layout.cuh
3672d530b17e6df6ec843bd219e1e9592bf00efd88babca1a193b0f660d59241  include/types/register/rv.cuh
8205aa7b6941852c093e32a113be35390fd292a440b69c6be357fd7cb3003d30  include/types/register/rv_layout.cuh
ab2bb408750dcb5849eba95ff29da9f635b47c8bdb21ab45c1989844cc04c712  include/types/shared/cst.cuh
fbe1b757a7f19831a4c2ebca1f9b0e2c55c3e0a274cd3c1c38f5c52a83b0d5d6  include/types/shared/csv.cuh
716ad1f195a6663f996c81898bb397238a729c6df7136798806359d1b666b939  include/types/shared/shared.cuh
6ebf57a645ca273d84e7a31f8522c7ba7df890aa015aa2a55a851e9ceb8e97f3  include/types/shared/st.cuh
b8317d84800b5d97be351a6f10ad1f58035590363a3975d563d94ae0a12adf0e  include/types/shared/sv.cuh
b78c130f89b69374d0bf8dd0655f1670cfc4c2fd48b128d5c67eb528d10253c5  include/types/types.cuh
