// Host-side helpers shared by the kgen C++ examples (cpp-vulkan, cpp-hip):
// a SHA-256 to check a blob against kgen_select.h's kg_artifacts before it
// reaches a driver, number formats, input generation, and the CPU
// references the examples compare with: a plain GEMV loop (double
// accumulation) with kgen's verification bound, and a port of the Q8_1
// quantizer (docs/quant-formats.md) that must match the GPU byte for byte.
// Nothing here comes from kgen but the header's types; it is the code a
// host would write.
#ifndef KGEN_EXAMPLE_HOST_CHECK_H
#define KGEN_EXAMPLE_HOST_CHECK_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kgen_select.h"

namespace kgex {

// ---- SHA-256 (FIPS 180-4), small and slow enough for a few blobs ----
inline std::string sha256_hex(const std::vector<unsigned char>& msg) {
  static const uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
      0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
      0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
      0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
      0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
      0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::vector<unsigned char> m(msg);
  uint64_t bits = (uint64_t)msg.size() * 8;
  m.push_back(0x80);
  while (m.size() % 64 != 56) m.push_back(0);
  for (int i = 7; i >= 0; i--) m.push_back((unsigned char)(bits >> (8 * i)));
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t off = 0; off < m.size(); off += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
      w[i] = (uint32_t)m[off + 4 * i] << 24 | (uint32_t)m[off + 4 * i + 1] << 16 | (uint32_t)m[off + 4 * i + 2] << 8 | m[off + 4 * i + 3];
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
      uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  char out[65];
  for (int i = 0; i < 8; i++) std::snprintf(out + 8 * i, 9, "%08x", h[i]);
  return std::string(out, 64);
}

// read_file reads a whole file; false when it cannot.
inline bool read_file(const std::string& path, std::vector<unsigned char>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// load_artifact reads generated/<path> of the variant's artifact and checks
// its SHA-256 against the header: a blob that is not the one the table was
// generated with never reaches the driver.
inline bool load_artifact(const std::string& generated, int variant, std::vector<unsigned char>* out) {
  const kg_artifact& a = kg_artifacts[kg_variants[variant].art];
  std::string path = generated + "/" + a.path;
  if (!read_file(path, out)) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  std::string have = sha256_hex(*out);
  if (have != a.sha256) {
    std::fprintf(stderr, "%s: sha256 %s, kgen_select.h says %s: refusing to load it\n", path.c_str(), have.c_str(), a.sha256);
    return false;
  }
  return true;
}

// ---- number formats ----
inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// f32 -> bf16, nearest even (inputs here are finite).
inline uint16_t to_bf16(float f) {
  uint32_t b = f32_bits(f);
  return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
inline float from_bf16(uint16_t h) { return bits_f32((uint32_t)h << 16); }

// f32 -> IEEE binary16, nearest even; overflow to infinity, NaN -> 0x7fff as
// the Q8_1 kernels store it (runtime/ref cudaHalf).
inline uint16_t to_f16(float f) {
  uint32_t b = f32_bits(f);
  uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
  uint32_t mag = b & 0x7fffffffu;
  if (mag > 0x7f800000u) return 0x7fff;
  if (mag >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  // rounds past 65504
  int exp = (int)(mag >> 23) - 127;
  uint32_t mant = (mag & 0x7fffffu) | 0x800000u;
  if (mag == 0) return sign;
  if (exp < -25) return sign;  // below half the smallest subnormal: 0
  int shift = exp >= -14 ? 13 : 13 + (-14 - exp);  // normal, or subnormal: shift more
  uint32_t base = exp >= -14 ? (uint32_t)(exp + 15) << 10 : 0;
  uint32_t m = exp >= -14 ? (mag & 0x7fffffu) : mant;
  uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) q++;
  return (uint16_t)(sign | (base + q));  // a carry into the exponent is the right rounding
}

// ---- inputs: a small deterministic generator ----
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint32_t next() {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    return (uint32_t)(s >> 16);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(next() & 0xffffff) / 16777216.0f; }
};

// ---- GEMV: Y[t][n] = sum_k X[t][k] W[n][k] ----
struct GemvCheck {
  double l2_ratio;  // ||got - ref|| / || sum |x w| ||  (kgen's verification measure)
  double bound;     // 8 * 2^-24 * sqrt(K + 1)
  double max_abs;   // largest |got - ref|
  bool ok;
};

// check_gemv compares a GPU GEMV output (f32) with a double-accumulated CPU
// loop over the same bf16 inputs, with kgen's bound (README, "Verification
// and tolerances"): f32 accumulation of K exact products, errors adding like
// a random walk.
inline GemvCheck check_gemv(const std::vector<uint16_t>& w, const std::vector<uint16_t>& x, const std::vector<float>& y,
                            long long m, long long n, long long k) {
  double num = 0, den = 0, max_abs = 0;
  bool finite = true;
  for (long long t = 0; t < m; t++)
    for (long long r = 0; r < n; r++) {
      double ref = 0, mag = 0;
      for (long long i = 0; i < k; i++) {
        double p = (double)from_bf16(w[(size_t)(r * k + i)]) * (double)from_bf16(x[(size_t)(t * k + i)]);
        ref += p;
        mag += std::fabs(p);
      }
      double got = (double)y[(size_t)(t * n + r)];
      finite = finite && std::isfinite(got);
      double e = got - ref;
      num += e * e;
      den += mag * mag;
      if (std::fabs(e) > max_abs) max_abs = std::fabs(e);
    }
  GemvCheck c;
  c.l2_ratio = std::sqrt(num) / std::sqrt(den);
  c.bound = 8.0 * std::ldexp(1.0, -24) * std::sqrt((double)k + 1.0);
  c.max_abs = max_abs;
  c.ok = finite && c.l2_ratio <= c.bound;
  return c;
}

// ---- Q8_1: blocks of 32 -> {half d, half s, int8 qs[32]} (36 bytes) ----
// The GPU definition (docs/quant-formats.md): elements past K read 0;
// amax = max |x| (NaN dropped), d = amax / 127, qs = roundf(x / d) (0 when
// amax is 0), s = the sum of the inputs as a 32-lane xor butterfly adds
// them, d and s stored as f16 (nearest even). Float arithmetic is IEEE
// binary32 here (no -ffast-math: the byte comparison depends on it).
inline void quantize_q8_1_row(const float* x, long long k, unsigned char* y) {
  long long nb = (k + 31) / 32;
  for (long long b = 0; b < nb; b++) {
    float v[32];
    for (int i = 0; i < 32; i++) v[i] = b * 32 + i < k ? x[b * 32 + i] : 0.0f;
    float amax = NAN;
    for (int i = 0; i < 32; i++) {
      float a = std::fabs(v[i]);
      if (amax != amax || a > amax) amax = a;
    }
    float d = amax / 127.0f;
    unsigned char* blk = y + b * 36;
    for (int i = 0; i < 32; i++) {
      int8_t q = 0;
      if (amax != 0) {
        float r = std::round(v[i] / d);
        int16_t s16 = r != r ? 0 : r >= 32767.0f ? 32767 : r <= -32768.0f ? -32768 : (int16_t)r;
        q = (int8_t)(uint8_t)(uint16_t)s16;
      }
      blk[4 + i] = (unsigned char)q;
    }
    float s[32];
    std::memcpy(s, v, sizeof s);
    for (int m = 16; m >= 1; m /= 2) {
      float ns[32];
      for (int i = 0; i < 32; i++) ns[i] = s[i] + s[i ^ m];
      std::memcpy(s, ns, sizeof s);
    }
    uint16_t hd = to_f16(d), hs = to_f16(s[0]);
    blk[0] = (unsigned char)(hd & 0xff); blk[1] = (unsigned char)(hd >> 8);
    blk[2] = (unsigned char)(hs & 0xff); blk[3] = (unsigned char)(hs >> 8);
  }
}

// print_launch prints a planned launch in one line.
inline void print_launch(const kg_launch& l) {
  std::printf("  launch: groups %lldx%lldx%lld of %lld lanes; buffers", l.groups[0], l.groups[1], l.groups[2], l.workgroup);
  for (int b = 0; b < l.nbuffers; b++) std::printf(" %s(%s, binding %d)=%lld", l.buffers[b].name, l.buffers[b].dir, l.buffers[b].binding, l.buffers[b].bytes);
  std::printf("; args");
  for (int a = 0; a < l.nargs; a++) std::printf(" %s=%lld", l.arg_names[a], l.args[a]);
  if (l.nspec > 0) {
    std::printf("; spec constants");
    for (int s = 0; s < l.nspec; s++) std::printf(" %u=%u", l.spec[s].id, l.spec[s].value);
  }
  std::printf("\n");
}

}  // namespace kgex

#endif
