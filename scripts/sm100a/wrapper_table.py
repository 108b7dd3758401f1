"""The specification that scripts/sm100a/wrapper_opcodes.py checks kernels/sm100a/sm100a_ptx.cuh
against: per wrapper, the call compiled, the PTX instructions it must emit and their operands'
sources (each named by its PTX ISA section), where its results go, and the functions that issue
none; the same for ThunderKittens' wrappers (the peer run). Data only.
"""
from ptx_reader import WAIT_LOOP

SIGNATURE = ("(std::uint64_t* bar, std::uint32_t n, std::uint64_t d, bool acc, void* smem, const void* gmem, "
             "const CUtensorMap* map, int x, int y, float* fdst, const float* fsrc, std::uint32_t* out, float* fout, "
             "bool* flag, std::uint32_t n2, std::uint32_t n3, std::uint64_t d2, float fa, float fb)")
# The kernel parameters by position, as PTX numbers them (w_<name>_param_<i>).
PARAM_NAMES = [p.split()[-1].strip("*&)") for p in SIGNATURE.strip("()").split(",")]


# Wrappers whose body is a loop: every other wrapper kernel must be straight-line code, since a
# branch could skip its instruction (a wrapper that issues the fence only on some threads).
LOOPS = {"mbar_wait", "sleep_ns"}


def words(base, count, step):
    """A register array read from memory, element by element: *base, *base+step, ..."""
    return [f"*{base}" + (f"+{i * step}" if i else "") for i in range(count)]


# wrapper call (arguments are the kernel's parameters, so nothing folds away, and each argument
# of one call is a different parameter, so a swap shows) -> the instructions it must compile to,
# as opcode prefixes with every modifier (PTX ISA 8.x/9.x section names, as sm100a_ptx.cuh cites
# them), and for each instruction where its inputs come from, in the order the ISA's syntax
# gives them (Sources): a parameter's name when the operand is that parameter unchanged,
# `shared(name)` / `global(name)` after a conversion to that state space, `name+8` for an address
# 8 bytes past it, `*name` for a value loaded from it, `<...>` for a value computed, cut or
# redefined, an immediate as written, and `*` where the operand is not compared. Outputs
# (registers no earlier instruction wrote) are left out here; OUTPUTS says where they go.
TABLE = [
    # "Parallel Synchronization and Communication Instructions: mbarrier": mbarrier.init [addr], count;
    # mbarrier.arrive{.expect_tx} state, [addr]{, txCount}; mbarrier.try_wait.parity waitComplete,
    # [addr], phaseParity
    ("mbar_init", "detail::mbar_init(bar, n)", ["mbarrier.init.shared.b64"], [["shared(bar)", "n"]]),
    ("mbar_init_fence", "detail::mbar_init_fence()", ["fence.mbarrier_init.release.cluster"], [[]]),
    ("mbar_arrive", "detail::mbar_arrive(bar)", ["mbarrier.arrive.shared.b64"], [["shared(bar)"]]),
    ("mbar_arrive_expect_tx", "detail::mbar_arrive_expect_tx(bar, n)",
     ["mbarrier.arrive.expect_tx.release.cta.shared::cta.b64"], [["shared(bar)", "n"]]),
    ("mbar_try_wait", "*flag = detail::mbar_try_wait(bar, n)", ["mbarrier.try_wait.parity.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    ("mbar_wait", "detail::mbar_wait(bar, n)", ["mbarrier.try_wait.parity.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    # "Data Movement and Conversion Instructions: cp.async.bulk.tensor / cp.async.bulk /
    # cp.reduce.async.bulk / cp.async.bulk.commit_group / cp.async.bulk.wait_group":
    # cp.async.bulk.tensor [dstMem], [tensorMap, {coords}], [mbar] (load) and [tensorMap, {coords}],
    # [srcMem] (store); cp.async.bulk [dstMem], [srcMem], size, [mbar]; cp.reduce.async.bulk
    # [dstMem], [srcMem], size; wait_group N
    ("tma_load_2d", "detail::tma_load_2d(smem, map, x, y, bar)",
     ["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
     [["shared(smem)", "map", "x", "y", "shared(bar)"]]),
    ("tma_store_2d", "detail::tma_store_2d(map, x, y, smem)",
     ["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"], [["map", "x", "y", "shared(smem)"]]),
    ("tma_store_commit", "detail::tma_store_commit()", ["cp.async.bulk.commit_group"], [[]]),
    ("tma_store_wait_read", "detail::tma_store_wait_read()", ["cp.async.bulk.wait_group.read"], [["0"]]),
    ("bulk_load_1d", "detail::bulk_load_1d(smem, gmem, n, bar)",
     ["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"], [["shared(smem)", "global(gmem)", "n", "shared(bar)"]]),
    ("bulk_reduce_add_f32", "detail::bulk_reduce_add_f32(fdst, fsrc, n)",
     ["cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32"], [["global(fdst)", "shared(fsrc)", "n"]]),
    ("bulk_wait_all", "detail::bulk_wait_all()", ["cp.async.bulk.wait_group"], [["0"]]),
    ("prefetch_tensor_map", "detail::prefetch_tensor_map(map)", ["prefetch.tensormap"], [["map"]]),
    # "Membar / fence": fence.proxy.async
    ("fence_proxy_async_smem", "detail::fence_proxy_async_smem()", ["fence.proxy.async.shared::cta"], [[]]),
    # "Tensor Core 5th Generation Family Instructions": tcgen05.alloc [dst], nCols; tcgen05.dealloc
    # taddr, nCols; tcgen05.mma [d-tmem], a-desc, b-desc, idesc, enable-input-d; tcgen05.commit
    # [mbar]; tcgen05.ld r, [taddr]; tcgen05.st [taddr], r
    ("tmem_alloc", "detail::tmem_alloc(out, n)", ["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"],
     [["shared(out)", "n"]]),
    ("tmem_relinquish_alloc_permit", "detail::tmem_relinquish_alloc_permit()",
     ["tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"], [[]]),
    ("tmem_dealloc", "detail::tmem_dealloc(n, n2)", ["tcgen05.dealloc.cta_group::1.sync.aligned.b32"], [["n", "n2"]]),
    ("umma_bf16_ss", "detail::umma_bf16_ss(n, d, d2, n2, acc)", ["tcgen05.mma.cta_group::1.kind::f16"],
     [["n", "d", "d2", "n2", "acc"]]),
    ("umma_commit", "detail::umma_commit(bar)",
     ["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"], [["shared(bar)"]]),
    ("tmem_load_32cols", "{ std::uint32_t r[32]; detail::tmem_load_32cols(r, n); for (int i = 0; i < 32; ++i) out[i] = r[i]; }",
     ["tcgen05.ld.sync.aligned.32x32b.x32.b32"], [["n"]]),
    ("tmem_load_64cols", "{ std::uint32_t r[64]; detail::tmem_load_64cols(r, n); for (int i = 0; i < 64; ++i) out[i] = r[i]; }",
     ["tcgen05.ld.sync.aligned.32x32b.x64.b32"], [["n"]]),
    ("tmem_store_32cols", "{ std::uint32_t r[32]; for (int i = 0; i < 32; ++i) r[i] = out[i]; detail::tmem_store_32cols(n, r); }",
     ["tcgen05.st.sync.aligned.32x32b.x32.b32"], [["n"] + words("global(out)", 32, 4)]),
    ("tmem_wait_ld", "detail::tmem_wait_ld()", ["tcgen05.wait::ld.sync.aligned"], [[]]),
    ("tmem_wait_st", "detail::tmem_wait_st()", ["tcgen05.wait::st.sync.aligned"], [[]]),
    ("tc_fence_before_sync", "detail::tc_fence_before_sync()", ["tcgen05.fence::before_thread_sync"], [[]]),
    ("tc_fence_after_sync", "detail::tc_fence_after_sync()", ["tcgen05.fence::after_thread_sync"], [[]]),
    # "Parallel Synchronization and Communication Instructions: bar": bar.sync a{, b}, a the
    # barrier, b the thread count
    ("named_barrier_sync", "detail::named_barrier_sync(int(n), int(n2))", ["bar.sync"], [["n", "n2"]]),
    # The public part: the generic-proxy shared store, and the arithmetic. "cvt": for .bf16x2 the
    # first source goes to the upper half, so pack_bf16x2(lo, hi) passes hi first.
    ("st_shared_v4", "st_shared_v4(n, n2, n3, std::uint32_t(x), std::uint32_t(y))", ["st.shared.v4.b32"],
     [["n", "n2", "n3", "x", "y"]]),
    ("sleep_ns", "sleep_ns(n)", ["nanosleep.u32"], [["<min.u32>"]]),  # a chunk of n, at most 1 ms
    ("fast_exp2", "*fout = fast_exp2(fa)", ["ex2.approx.ftz.f32"], [["fa"]]),
    ("pack_bf16x2", "*out = pack_bf16x2(fa, fb)", ["cvt.rn.bf16x2.f32"], [["fb", "fa"]]),
]

# Where a kernel's results go: its global stores (`address=value`, value `*` not compared) and
# its branches (`back` or `forward`, and on what), for the kernels whose wrapper returns a value,
# fills registers or loops; every other kernel must store and branch nowhere. None: not compared.
OUTPUTS = {
    "mbar_try_wait": (["global(flag)=out#0"], []),  # the flag is the wait's own predicate
    "mbar_wait": ([], WAIT_LOOP),
    "tmem_load_32cols": ([f"global(out){f'+{4 * i}' if i else ''}=out#{i}" for i in range(32)], []),
    "tmem_load_64cols": ([f"global(out){f'+{4 * i}' if i else ''}=out#{i}" for i in range(64)], []),
    "fast_exp2": (["global(fout)=out#0"], []),
    "pack_bf16x2": (["global(out)=out#0"], []),
    # Skips the loop when n is 0, loops while the remainder it counts down is not.
    "sleep_ns": ([], ["forward if <<redefined> == 0>", "back if <<redefined> != 0>"]),
    "smem_addr": (["global(out)=shared(smem)"], []),  # the generic-to-shared conversion itself
    "ld_shared": (["global(out)=*global(smem)"], []),
    # The TMEM address arithmetic is the same function in the execution model, whose runs check it.
    "tmem_at": (["global(out)=*"], []),
    "keep_after_wait": (["global(out)=n", "global(out)+4=*"], []),
}
BOOL_PARAMS = {"acc", "flag"}
# Arithmetic wrappers: pure, so the compiler may merge two calls and need not order memory.
PURE = {"fast_exp2", "pack_bf16x2"}

# Functions of the header that issue no instruction of the families above, with why; every other
# function of the header must be in TABLE, so a new wrapper cannot go unchecked.
# Each is compiled too, and must emit nothing of the families above.
NO_INSTRUCTION = {
    "smem_addr": ("*out = smem_addr(smem)", "address conversion (cvta)"),
    "tmem_at": ("*out = tmem_at(n, x, y)", "arithmetic on a TMEM address"),
    "ld_shared": ("*out = ld_shared(reinterpret_cast<const std::uint32_t*>(smem))",
                  "a plain C++ load (ld.shared only where the compiler picks it)"),
    "keep_after_wait": ("{ std::uint32_t r[2] = {n, n + 1}; keep_after_wait(r); out[0] = r[0]; out[1] = r[1]; }",
                        "an empty asm with a memory clobber: a compiler barrier, no instruction"),
}

# ThunderKittens' sm_100a wrappers (include/ops/thread/util/{sync,tma}.cuh, ops/thread/mma/
# tcgen05.cuh), read by --peer-tk the same way as ours: the check must stay quiet on code nobody
# here wrote. Its semaphore is an mbarrier; its mma takes the accumulate flag as a template
# immediate turned into the predicate by a setp.eq, which is what that operand is compared as.
_SEM = "*reinterpret_cast<kittens::semaphore*>(bar)"
PEER_TABLE = [
    ("init_semaphore", f"kittens::init_semaphore({_SEM}, int(n), 0)", ["mbarrier.init.shared::cta.b64"], [["shared(bar)", "n"]]),
    ("arrive", f"kittens::arrive({_SEM})", ["mbarrier.arrive.release.cta.shared::cta.b64"], [["shared(bar)"]]),
    ("arrive_count", f"kittens::arrive({_SEM}, n)", ["mbarrier.arrive.release.cta.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    ("wait", f"kittens::wait({_SEM}, int(n))", ["mbarrier.try_wait.parity.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    ("expect_bytes", f"kittens::tma::expect_bytes({_SEM}, n)", ["mbarrier.arrive.expect_tx.shared::cta.b64"],
     [["shared(bar)", "n"]]),
    ("st_st", "kittens::detail::tcgen05::st_st<kittens::bf16, 1>(n, d, d2, n2)", ["tcgen05.mma.cta_group::1.kind::f16"],
     [["n", "d", "d2", "n2", "<setp.eq>"]]),
    # TK's commit names no state space and passes a shared-window offset ("l"(__cvta_generic_to_
    # shared(&sem))); ours names .shared::cluster. Whether the ISA reads that operand as generic
    # there was not settled here; the entry records what TK does.
    ("tensor_commit", f"kittens::tensor_commit<1>({_SEM})", ["tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64"],
     [["shared(bar)"]]),
    ("tensor_before_thread_sync", "kittens::tensor_before_thread_sync()", ["tcgen05.fence::before_thread_sync"], [[]]),
    ("tensor_after_thread_sync", "kittens::tensor_after_thread_sync()", ["tcgen05.fence::after_thread_sync"], [[]]),
]
PEER_LOOPS = {"wait"}
PEER_OUTPUTS = {"wait": ([], WAIT_LOOP)}


def every_entry():
    """TABLE and NO_INSTRUCTION as one list of (name, call, instructions, operands): every
    function of the header the check compiles."""
    return TABLE + [(name, call, [], []) for name, (call, _) in NO_INSTRUCTION.items()]
