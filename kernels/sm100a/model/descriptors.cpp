#include "descriptors.hpp"

#include <sstream>

#include "scheduler.hpp"  // ModelError

namespace vsa::model {

namespace {
std::uint64_t bits(std::uint64_t v, int lo, int hi) { return (v >> lo) & ((std::uint64_t(1) << (hi - lo + 1)) - 1); }
std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}
}  // namespace

SmemDescriptor decode_smem_descriptor(std::uint64_t d) {
  const std::string where = "shared-memory descriptor " + hex(d) + " (PTX ISA 9.7.16.4.1): ";
  if (bits(d, 14, 15) != 0 || bits(d, 30, 31) != 0) throw ModelError(where + "reserved bits 14-15 / 30-31 set");
  if (bits(d, 46, 48) != 1)
    throw ModelError(where + "bits 46-48 must hold the fixed value 0b001, got " + std::to_string(bits(d, 46, 48)));
  if (bits(d, 53, 60) != 0) throw ModelError(where + "bits 53-60 must be 0");
  const std::uint64_t mode = bits(d, 61, 63);
  if (mode == 3 || mode == 5 || mode == 7) throw ModelError(where + "invalid swizzle mode " + std::to_string(mode));
  SmemDescriptor s;
  s.start = std::uint32_t(bits(d, 0, 13) << 4);
  s.lbo = std::uint32_t(bits(d, 16, 29) << 4);
  s.sbo = std::uint32_t(bits(d, 32, 45) << 4);
  s.base_offset = int(bits(d, 49, 51));
  s.lbo_absolute = bits(d, 52, 52) != 0;
  s.swizzle = Swizzle(mode);
  if (s.lbo_absolute)
    throw ModelError(where + "absolute leading-dimension address mode (bit 52) is sm_103a only (9.7.16.4.1.1)");
  return s;
}

InstrDescriptor decode_instr_descriptor_f16(std::uint32_t v) {
  const std::string where = "instruction descriptor " + hex(v) + " (PTX ISA 9.7.16.4.2, .kind::f16): ";
  if (bits(v, 6, 6) || bits(v, 23, 23) || bits(v, 29, 29)) throw ModelError(where + "reserved bit 6, 23 or 29 set");
  if (bits(v, 2, 2)) throw ModelError(where + "sparsity (bit 2) is not modelled");
  if (bits(v, 0, 1)) throw ModelError(where + "sparsity selector set on a dense MMA");
  if (bits(v, 3, 3)) throw ModelError(where + "saturate (bit 3) is not applicable to .kind::f16");
  if (bits(v, 13, 14)) throw ModelError(where + "negation (bits 13-14) is not modelled");
  if (bits(v, 30, 31)) throw ModelError(where + "max shift (bits 30-31) is for .ws only");
  InstrDescriptor r;
  r.dtype = int(bits(v, 4, 5));
  r.atype = int(bits(v, 7, 9));
  r.btype = int(bits(v, 10, 12));
  r.a_mn_major = bits(v, 15, 15) != 0;
  r.b_mn_major = bits(v, 16, 16) != 0;
  r.n = int(bits(v, 17, 22) << 3);
  r.m = int(bits(v, 24, 28) << 4);
  if (r.dtype > 1) throw ModelError(where + "dtype " + std::to_string(r.dtype) + " is not F16 (0) or F32 (1)");
  if (r.atype > 1 || r.btype > 1) throw ModelError(where + "atype/btype must be F16 (0) or BF16 (1)");
  if (r.dtype != 1 || r.atype != 1 || r.btype != 1)
    throw ModelError(where + "the model computes BF16 x BF16 -> F32 only (dtype 1, atype 1, btype 1)");
  if (r.m != 64 && r.m != 128)
    throw ModelError(where + "M = " + std::to_string(r.m) + "; cta_group::1 takes M 64 or 128");
  const int step = r.m == 64 ? 8 : 16;
  if (r.n < step || r.n > 256 || r.n % step != 0)
    throw ModelError(where + "N = " + std::to_string(r.n) + "; M = " + std::to_string(r.m) + " takes N in " +
                     std::to_string(step) + "..256 in steps of " + std::to_string(step));
  return r;
}

std::uint32_t operand_element_address(const SmemDescriptor& d, bool mn_major, int mn, int k) {
  if (d.swizzle != Swizzle::sw128)
    throw ModelError("shared-memory descriptor: swizzle mode " + std::to_string(int(d.swizzle)) +
                     " is not modelled (only 2, 128-byte swizzle)");
  if (d.base_offset != 0)
    throw ModelError("shared-memory descriptor: a non-zero base offset is not modelled (pattern must start on 1024 B)");
  std::uint32_t offset = 0;
  if (!mn_major) {
    offset = std::uint32_t(mn % 8) * 128u + std::uint32_t(mn / 8) * d.sbo + std::uint32_t(k) * 2u;
  } else {
    offset = std::uint32_t(mn % 64) * 2u + std::uint32_t(mn / 64) * d.lbo + std::uint32_t(k % 8) * 128u +
             std::uint32_t(k / 8) * d.sbo;
  }
  return swizzle128(d.start + offset);
}

int d_row_lane(int m, int lane_base, int row) {
  if (m == 128) {
    if (lane_base != 0)
      throw ModelError("tcgen05.mma M = 128 (Layout D): D lane must be 0, got " + std::to_string(lane_base));
    return row;
  }
  if (m == 64) {
    if (lane_base != 0 && lane_base != 16)
      throw ModelError("tcgen05.mma M = 64 (Layout F): D lane alignment must be 0 or 16 (PTX ISA 9.7.16.10.5), got " +
                       std::to_string(lane_base));
    return 32 * (row / 16) + lane_base + row % 16;
  }
  throw ModelError("tcgen05.mma: no data-path layout for M = " + std::to_string(m));
}

std::string describe(const SmemDescriptor& d) {
  std::ostringstream os;
  os << "start 0x" << std::hex << d.start << std::dec << " LBO " << d.lbo << " SBO " << d.sbo << " swizzle "
     << int(d.swizzle);
  return os.str();
}

}  // namespace vsa::model
