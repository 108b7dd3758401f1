"""Defects planted into a scratch copy of kernels/sm100a/sm100a_ptx.cuh (wrapper_opcodes.py
--plant NAME): PLANTS must each be reported, EQUIVALENTS (rewrites with the same meaning) must
not. Each is (text that occurs exactly once in the header, its replacement). PEER_PLANTS do the
same to a copy of ThunderKittens' headers (--peer-tk DIR --plant NAME).
"""
import os


PLANTS = {
    "after-fence-as-before": ("cuda::ptx::tcgen05_fence_after_thread_sync()", "cuda::ptx::tcgen05_fence_before_thread_sync()"),
    "wait-ld-as-st": ("void tmem_wait_ld() { cuda::ptx::tcgen05_wait_ld(); }", "void tmem_wait_ld() { cuda::ptx::tcgen05_wait_st(); }"),
    "arrive-expect-tx-as-arrive": (
        "(void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,",
        "(void)cuda::ptx::mbarrier_arrive(bar); (void)("),
    "commit-group-dropped": ("void tma_store_commit() { cuda::ptx::cp_async_bulk_commit_group(); }", "void tma_store_commit() {}"),
    "new-wrapper-unlisted": ("}  // namespace detail",
                             "__forceinline__ __device__ static void* tc_fence_unlisted() {\n"
                             "  cuda::ptx::tcgen05_fence_after_thread_sync();\n  return nullptr;\n}\n"
                             "}  // namespace detail"),
    "guarded-fence": ("void tc_fence_after_sync() { cuda::ptx::tcgen05_fence_after_thread_sync(); }",
                      "void tc_fence_after_sync() { if (threadIdx.x == 0) cuda::ptx::tcgen05_fence_after_thread_sync(); }"),
    "try-wait-twice": ("  return cuda::ptx::mbarrier_try_wait_parity(bar, parity);",
                       "  return cuda::ptx::mbarrier_try_wait_parity(bar, parity) && cuda::ptx::mbarrier_try_wait_parity(bar, parity);"),
    "two-per-asm-string": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                           'asm volatile("bar.sync %0, %1; tcgen05.fence::before_thread_sync;\\n" ::"r"(id), "r"(threads) '
                           ': "memory");'),
    "noinline-helper": ("__device__ __forceinline__ void tc_fence_after_sync() { cuda::ptx::tcgen05_fence_after_thread_sync(); }",
                        "__noinline__ __device__ void tc_helper_ni() { cuda::ptx::tcgen05_fence_after_thread_sync(); }\n"
                        "__device__ __forceinline__ void tc_fence_after_sync() { tc_helper_ni(); }"),
    "overload": ("}  // namespace detail",
                 "__device__ __forceinline__ void tc_fence_after_sync(int) { cuda::ptx::tcgen05_fence_before_thread_sync(); }\n"
                 "}  // namespace detail"),
    "macro-wrapper": ("}  // namespace detail",
                      "#define VSA_FENCE_FN(fname) \\\n  __device__ __forceinline__ void fname() { "
                      "cuda::ptx::tcgen05_fence_before_thread_sync(); }\nVSA_FENCE_FN(tc_fence_macro)\n"
                      "}  // namespace detail"),
    # The source reader's blind spots (second review of 2026-12-06): a digit separator read as a
    # character literal hid the asm after it; a macro standing for __device__, and an asm in a
    # macro, were not read as wrappers.
    "digit-separator-hides-asm": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                                  'static_assert(1\'000 > 0); asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads)); '
                                  'static_assert(2\'000 > 0);'),
    "device-macro-wrapper": ("}  // namespace detail",
                             "_CCCL_DEVICE inline void tc_store_unlisted(std::uint32_t* p, std::uint32_t v) noexcept {\n"
                             '  asm("st.shared.u32 [%0], %1;" :: "r"(smem_addr(p)), "r"(v));\n}\n'
                             "}  // namespace detail"),
    "asm-in-macro": ("}  // namespace detail",
                     '#define VSA_BAR_SYNC(id, threads) asm("bar.sync %0, %1;" ::"r"(id), "r"(threads))\n'
                     "}  // namespace detail"),
    # Operands (the wrapper hands its instruction the wrong value, or two values swapped)
    "barrier-offset": ("void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }",
                       "void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar + 1); }"),
    "load-coords-swapped": ("const std::int32_t coords[2] = {x, y};\n  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster",
                            "const std::int32_t coords[2] = {y, x};\n  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster"),
    "mma-descriptors-swapped": ("cuda::ptx::cta_group_1, d_tmem, a_desc, b_desc, idesc, accumulate",
                                "cuda::ptx::cta_group_1, d_tmem, b_desc, a_desc, idesc, accumulate"),
    "bf16-halves-swapped": (': "=r"(r) : "f"(hi), "f"(lo));', ': "=r"(r) : "f"(lo), "f"(hi));'),
    "wait-read-allows-one": ("cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});",
                             "cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{});"),
    # Found by the review of the operand check: a generic address where the instruction wants a
    # shared one, a 64-bit descriptor cut to 32 bits, a result inverted, a loop that changes its
    # parity, registers read back in another order, smem_addr without its conversion.
    "generic-address": ("void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }",
                        'void mbar_arrive(std::uint64_t* bar) { asm volatile("mbarrier.arrive.shared.b64 _, [%0];" '
                        ':: "l"(bar) : "memory"); }'),
    "descriptor-cut": ("std::uint32_t d_tmem, std::uint64_t a_desc,", "std::uint32_t d_tmem, std::uint32_t a_desc,"),
    "try-wait-negated": ("  return cuda::ptx::mbarrier_try_wait_parity(bar, parity);",
                         "  return !cuda::ptx::mbarrier_try_wait_parity(bar, parity);"),
    "wait-parity-flips": ("  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n  }",
                          "  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n    parity ^= 1u;\n  }"),
    "load-reversed": ("void tmem_load_32cols(std::uint32_t (&r)[32], std::uint32_t taddr) {\n  cuda::ptx::tcgen05_ld_32x32b(r, taddr);",
                      "void tmem_load_32cols(std::uint32_t (&r)[32], std::uint32_t taddr) {\n  std::uint32_t t[32];\n"
                      "  cuda::ptx::tcgen05_ld_32x32b(t, taddr);\n  for (int i = 0; i < 32; ++i) r[i] = t[31 - i];"),
    "smem-addr-unconverted": ("return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));",
                              "return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));"),
    # Found by the second review: what a loop does after its wait, asm the compiler may merge or
    # move, statements outside the families (a volatile store, exit), a count made a bool.
    "wait-spins-stale": ("  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n  }",
                         '  asm volatile("{\\n.reg .pred p;\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n'
                         'WAIT_%=:\\n@!p bra WAIT_%=;\\n}\\n" :: "r"(smem_addr(bar)), "r"(parity) : "memory");'),
    "try-wait-not-volatile": ("  return cuda::ptx::mbarrier_try_wait_parity(bar, parity);",
                              '  std::uint32_t ok;\n  asm("{\\n.reg .pred p;\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;'
                              '\\nselp.u32 %0, 1, 0, p;\\n}\\n" : "=r"(ok) : "r"(smem_addr(bar)), "r"(parity));\n  return ok != 0;'),
    "barrier-no-clobber": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                           'asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads));'),
    "keep-input-only": ('for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");',
                        'for (int i = 0; i < N; ++i) asm volatile("" :: "r"(r[i]) : "memory");'),
    "volatile-store-after-init": ("  cuda::ptx::mbarrier_init(bar, arrivals);",
                                  "  cuda::ptx::mbarrier_init(bar, arrivals);\n"
                                  "  *reinterpret_cast<volatile std::uint64_t*>(bar) = 0;"),
    "fence-exit": ("void tc_fence_after_sync() { cuda::ptx::tcgen05_fence_after_thread_sync(); }",
                   'void tc_fence_after_sync() { asm volatile("{\\n.reg .pred p;\\nsetp.ne.u32 p, %0, 0;\\n@p exit;\\n"'
                   '"tcgen05.fence::after_thread_sync;\\n}\\n" :: "r"(threadIdx.x) : "memory"); }'),
    "count-as-bool": ("void mbar_init(std::uint64_t* bar, std::uint32_t arrivals)", "void mbar_init(std::uint64_t* bar, bool arrivals)"),
    "sleep-never-ends": ("    nanoseconds -= chunk;\n", ""),
    # Found by the third review: a wait loop whose back edge lands on a jump out, a return taken
    # when the wait completed, a harness load with acquire semantics, `__asm__` without a clobber.
    "wait-back-edge-to-exit": ("  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n  }",
                               '  asm volatile("{\\n.reg .pred p;\\nbra.uni W_%=;\\nS_%=:\\nbra.uni D_%=;\\nW_%=:\\n'
                               'mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n@!p bra S_%=;\\nD_%=:\\n}\\n" :: '
                               '"r"(smem_addr(bar)), "r"(parity) : "memory");'),
    "wait-returns-on-success": ("  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n  }",
                                '  asm volatile("{\\n.reg .pred p;\\nW_%=:\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], '
                                '%1;\\n@!p bra W_%=;\\n@!p ret;\\nbra.uni W_%=;\\n}\\n" :: "r"(smem_addr(bar)), "r"(parity) '
                                ': "memory");'),
    "acquire-load-added": ("cuda::ptx::op_add, dst, src, bytes);",
                           'cuda::ptx::op_add, dst, src, bytes);\n  asm volatile("{\\n.reg .b32 t;\\n'
                           'ld.global.acquire.gpu.b32 t, [%0];\\n}\\n" :: "l"(dst) : "memory");'),
    "underscore-asm-no-clobber": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                                  '__asm__ volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads));'),
    "wait-in-compiler-barrier": ('for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");',
                                 'for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");\n'
                                 '  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");'),
}

# Rewrites that mean the same as the real wrapper: --plant applies them like the plants, and the
# check must stay quiet on each (hand-written asm instead of CCCL, the bool as a 0/1 register,
# ThunderKittens' shape of a wait loop, spellings the ISA defines as the same instruction).
EQUIVALENTS = {
    "wait-other-loop-shape": ("  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {\n  }",
                              '  asm volatile("{\\n.reg .pred P1;\\nLAB_WAIT_%=:\\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], '
                              '%1;\\n@P1 bra.uni DONE_%=;\\nbra.uni LAB_WAIT_%=;\\nDONE_%=:\\n}\\n" :: "r"(smem_addr(bar)), '
                              '"r"(parity) : "memory");'),
    "arrive-spelled-out": ("void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }",
                           'void mbar_arrive(std::uint64_t* bar) { asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, '
                           '[%0];" :: "r"(smem_addr(bar)) : "memory"); }'),
    # A parenthesis inside the template (here in a PTX comment) is not the statement's end.
    "paren-in-asm-template": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                              'asm volatile("bar.sync %0, %1; // :)\\n" ::"r"(id), "r"(threads) : "memory");'),
    # An asm inside `if constexpr` still belongs to its function (here a pure one).
    "asm-in-if-constexpr": ('  asm("ex2.approx.ftz.f32 %0, %1;\\n" : "=f"(y) : "f"(x));',
                            '  if constexpr (true) {\n    asm("ex2.approx.ftz.f32 %0, %1;\\n" : "=f"(y) : "f"(x));\n  }'),
    # A raw string over several lines (the template's quotes and newlines are its own).
    "raw-string-template": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                            'asm volatile(R"(\n  bar.sync %0, %1; // "quoted" (\n  )" ::"r"(id), "r"(threads) : "memory");'),
    "barrier-sync-aligned": ('asm volatile("bar.sync %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");',
                             'asm volatile("barrier.sync.aligned %0, %1;\\n" ::"r"(id), "r"(threads) : "memory");'),
    "hand-asm-arrive": ("void mbar_arrive(std::uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }",
                        'void mbar_arrive(std::uint64_t* bar) { asm volatile("mbarrier.arrive.shared.b64 _, [%0];" '
                        ':: "r"(std::uint32_t(__cvta_generic_to_shared(bar))) : "memory"); }'),
    "hand-asm-mma": ("cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, d_tmem, a_desc, b_desc, idesc, "
                     "accumulate);",
                     'asm volatile("{\\n.reg .pred p;\\nsetp.eq.u32 p, %4, 1;\\n'
                     'tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\\n}\\n" :: "r"(d_tmem), "l"(a_desc), '
                     '"l"(b_desc), "r"(idesc), "r"(accumulate ? 1u : 0u) : "memory");'),
}


# Defects planted in a copy of ThunderKittens' headers (--peer-tk DIR --plant NAME): the peer
# run must report each, as it reports nothing on the headers as fetched. Each is (file under
# include/, an anchor that occurs there exactly once, the text to replace at its first
# occurrence after the anchor, the replacement). Their texts are TK's at 0b55588d
# (scripts/peers/fetch_tk_blackwell.sh).
_TK_SYNC, _TK_TMA, _TK_MMA = "ops/thread/util/sync.cuh", "ops/thread/util/tma.cuh", "ops/thread/mma/tcgen05.cuh"
_TK_WAIT = "__device__ static inline void wait(semaphore& sem, int kPhaseBit) {"
PEER_PLANTS = {
    "tk-mma-descriptors-swapped": (_TK_MMA, '"tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;}\\n"',
                                   '"l"(a_desc), "l"(b_desc)', '"l"(b_desc), "l"(a_desc)'),
    "tk-accumulate-inverted": (_TK_MMA, "void st_st(uint32_t d_tt_addr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc) {",
                               '"setp.eq.u32 p, 1, %4;\\n" \\\n                "tcgen05.mma.cta_group::1.kind::f16 [%0], %1',
                               '"setp.ne.u32 p, 1, %4;\\n" \\\n                "tcgen05.mma.cta_group::1.kind::f16 [%0], %1'),
    "tk-commit-without-cvta": (_TK_SYNC, "__device__ static inline void tensor_commit(",
                               '"l"(__cvta_generic_to_shared(&sem))', '"l"(&sem)'),
    "tk-wait-inverted": (_TK_SYNC, _TK_WAIT, '"@P1                       bra.uni DONE;\\n"',
                         '"@!P1                      bra.uni DONE;\\n"'),
    "tk-wait-spins-stale": (_TK_SYNC, _TK_WAIT,
                            '"LAB_WAIT:\\n"\n        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\\n"',
                            '"mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\\n"\n        "LAB_WAIT:\\n"'),
    "tk-arrive-count-dropped": (_TK_SYNC, "__device__ static inline void arrive(semaphore& sem, uint32_t count) {",
                                '"mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], %1;\\n"',
                                '"mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\\n"'),
    "tk-after-fence-as-before": (_TK_SYNC, "__device__ static inline void tensor_after_thread_sync() {",
                                 "tcgen05.fence::after_thread_sync;", "tcgen05.fence::before_thread_sync;"),
    "tk-init-count-as-bool": (_TK_SYNC, "__device__ static inline void init_semaphore(",
                              '"r"(thread_count+transaction_count)', '"r"(int(thread_count+transaction_count != 0))'),
}


def plant_peer(include_dir, name):
    """Applies PEER_PLANTS[name] to the headers under include_dir (a scratch copy); returns an
    error string, or None."""
    rel, anchor, old, new = PEER_PLANTS[name]
    path = os.path.join(include_dir, rel)
    text = open(path).read()
    if text.count(anchor) != 1:
        return f"plant {name}: its anchor is not in {rel} exactly once"
    at = text.index(old, text.index(anchor)) if old in text[text.index(anchor):] else -1
    if at < 0:
        return f"plant {name}: its text is not in {rel} after its anchor"
    open(path, "w").write(text[:at] + new + text[at + len(old):])
    return None

