# vsa_cuda_gencode(<target> ARCHS <a>... [PTX <arch>])
# Adds explicit -gencode flags: ARCHS like 80 90 100 90a 100a; PTX adds a
# compute_<arch> PTX image for GPUs newer than the last ARCH.
function(vsa_cuda_gencode target)
  cmake_parse_arguments(ARG "" "PTX" "ARCHS" ${ARGN})
  foreach(arch IN LISTS ARG_ARCHS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_${arch},code=sm_${arch}>)
  endforeach()
  if(ARG_PTX)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_${ARG_PTX},code=compute_${ARG_PTX}>)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo>)
endfunction()
