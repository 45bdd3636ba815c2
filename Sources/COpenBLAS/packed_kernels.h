// Spotter's own small-GEMM kernels, for the shapes OpenBLAS's generic paths serve least well:
// convolutions over tens of frames (M = 1…60 rows) with weights packed once per model.
// Only the Linalg module calls these (Sources/Linalg/PackedGEMM.swift checks every shape).
//
// One body serves every instruction set: it is written with Clang's vector extensions and
// compiled once per target (AVX-512F, AVX2+FMA+F16C) through function target attributes, so
// the binary runs on any x86-64 and picks the widest one at run time. Elsewhere the kernels
// are absent (spk_instruction_set() returns 0) and Spotter uses OpenBLAS alone.
//
// C (m, n) = epilogue(bias + Σ_tap A_tap (m, k) · B_tap (k, n)), where A_tap's row r starts at
// a + tap·tap_stride + r·lda (a convolution's shifted input rows, read in place: no im2col), and
// B is packed in panels of 2·LANES columns: panel p holds, for each tap and each of the k rows,
// its 2·LANES floats (or halves) contiguously, zero-padded past n. Bias is padded the same way.
#ifndef SPOTTER_PACKED_KERNELS_H
#define SPOTTER_PACKED_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SPK_NONE 0
#define SPK_AVX2 1
#define SPK_AVX512 2

#if defined(__x86_64__) && defined(__clang__)

/// The widest instruction set this CPU and OS support: SPK_AVX512, SPK_AVX2 or SPK_NONE.
static inline int spk_instruction_set(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return SPK_AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
      && __builtin_cpu_supports("f16c"))
    return SPK_AVX2;
  return SPK_NONE;
}

typedef float spk_v16 __attribute__((vector_size(64), aligned(4)));
typedef float spk_v8 __attribute__((vector_size(32), aligned(4)));
typedef _Float16 spk_h16 __attribute__((vector_size(32), aligned(2)));
typedef _Float16 spk_h8 __attribute__((vector_size(16), aligned(2)));

// One register tile: MR rows × NP panels (each panel two vectors), accumulated over every tap
// and k, then bias, ReLU and store. MR and NP are constants at each call site, so the loops
// unroll and the accumulators live in registers.
#define SPK_UNROLL _Pragma("clang loop unroll(full)")

#define SPK_TILE(NAME, TARGET, V, H, LOADB)                                                     \
  __attribute__((target(TARGET), always_inline)) static inline void NAME(                      \
      const int MR, const int NP, int k, int taps, const float *a, ptrdiff_t lda,              \
      ptrdiff_t tap_stride, const void *b, ptrdiff_t panel_stride, const float *bias,          \
      ptrdiff_t bias_row, float *c, ptrdiff_t ldc, int relu, int last_width) {                 \
    enum { L = sizeof(V) / sizeof(float) };                                                    \
    V acc[12][8];                                                                              \
    SPK_UNROLL for (int p = 0; p < NP; p++)                                                    \
      SPK_UNROLL for (int h = 0; h < 2; h++)                                                              \
        SPK_UNROLL for (int r = 0; r < MR; r++)                                                           \
          acc[r][2 * p + h] = *(const V *)(bias + r * bias_row + p * 2 * L + h * L);          \
    for (int tap = 0; tap < taps; tap++) {                                                     \
      const float *at = a + tap * tap_stride;                                                  \
      ptrdiff_t boffset = (ptrdiff_t)tap * k * 2 * L;                                          \
      for (int kk = 0; kk < k; kk++) {                                                         \
        V bv[8];                                                                               \
        SPK_UNROLL for (int p = 0; p < NP; p++)                                                           \
          SPK_UNROLL for (int h = 0; h < 2; h++)                                                          \
            bv[2 * p + h] = LOADB(b, p * panel_stride + boffset + kk * 2 * L + h * L);         \
        SPK_UNROLL for (int r = 0; r < MR; r++) {                                                         \
          float x = at[r * lda + kk];                                                          \
          SPK_UNROLL for (int j = 0; j < 2 * NP; j++) acc[r][j] += bv[j] * x;                             \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
    SPK_UNROLL for (int r = 0; r < MR; r++)                                                               \
      SPK_UNROLL for (int p = 0; p < NP; p++) {                                                           \
        V out[2];                                                                              \
        SPK_UNROLL for (int h = 0; h < 2; h++) {                                                          \
          out[h] = acc[r][2 * p + h];                                                          \
          if (relu) out[h] = __builtin_elementwise_max(out[h], (V){0});                        \
        }                                                                                      \
        float *row = c + r * ldc + p * 2 * L;                                                  \
        if (p == NP - 1 && last_width < 2 * L) {                                               \
          memcpy(row, out, (size_t)last_width * sizeof(float));                                \
        } else {                                                                               \
          *(V *)row = out[0];                                                                  \
          *(V *)(row + L) = out[1];                                                            \
        }                                                                                      \
      }                                                                                        \
  }

#define SPK_LOADF_16(b, o) (*(const spk_v16 *)((const float *)(b) + (o)))
#define SPK_LOADF_8(b, o) (*(const spk_v8 *)((const float *)(b) + (o)))
#define SPK_LOADH_16(b, o) __builtin_convertvector(*(const spk_h16 *)((const _Float16 *)(b) + (o)), spk_v16)
#define SPK_LOADH_8(b, o) __builtin_convertvector(*(const spk_h8 *)((const _Float16 *)(b) + (o)), spk_v8)

SPK_TILE(spk_tile_f32_avx512, "avx512f", spk_v16, float, SPK_LOADF_16)
SPK_TILE(spk_tile_f16_avx512, "avx512f", spk_v16, _Float16, SPK_LOADH_16)
SPK_TILE(spk_tile_f32_avx2, "avx2,fma,f16c", spk_v8, float, SPK_LOADF_8)
SPK_TILE(spk_tile_f16_avx2, "avx2,fma,f16c", spk_v8, _Float16, SPK_LOADH_8)

// The driver: for each group of panels (its weights read from memory once), every window's
// rows (window w at a_list[w] and c_list[w] when given, else w·a_window and w·c_window on) in
// even blocks of up to BUDGET / panels rows (14 rows go as 7 + 7, not 12 + 2, so no
// block has too few accumulators to hide the FMA latency); up to three rows (a streaming
// step's) take up to four panels at once, so one row still has eight independent
// accumulators, and three panels (96 columns) go in one pass, not two.
#define SPK_CASE(TILE, MR, NP)                                                                 \
  case (MR) * 8 + (NP):                                                                        \
    TILE(MR, NP, k, taps, aw + r0 * lda, lda, tap_stride, b, panel_stride,                     \
         bias + r0 * bias_row + p * 2 * L, bias_row, cw + r0 * ldc + p * 2 * L, ldc, relu,     \
         width);                                                                               \
    break;

#define SPK_DRIVER(NAME, TARGET, TILE, V, BUDGET, BSIZE, CASES)                                \
  __attribute__((target(TARGET))) static inline void NAME(                                     \
      int windows, ptrdiff_t a_window, ptrdiff_t c_window, int m, int n, int k, int taps,      \
      const float *a, ptrdiff_t lda, ptrdiff_t tap_stride, const void *packed,                 \
      const float *bias, ptrdiff_t bias_row, float *c, ptrdiff_t ldc, int relu,                \
      const float *const *a_list, float *const *c_list) {                                      \
    enum { L = sizeof(V) / sizeof(float) };                                                    \
    int panels = (n + 2 * L - 1) / (2 * L);                                                    \
    ptrdiff_t panel_stride = (ptrdiff_t)taps * k * 2 * L;                                      \
    int most = m <= (BUDGET) / 4 ? 4 : m <= (BUDGET) / 2 ? 2 : 1;                              \
    for (int p = 0; p < panels;) {                                                             \
      int np = panels - p < most ? panels - p : most;                                          \
      int width = n - (p + np - 1) * 2 * L;                                                    \
      const char *b = (const char *)packed + (ptrdiff_t)p * panel_stride * (BSIZE);            \
      for (int w = 0; w < windows; w++) {                                                      \
        const float *aw = a_list ? a_list[w] : a + w * a_window;                               \
        float *cw = c_list ? c_list[w] : c + w * c_window;                                     \
        int blocks = (m + (BUDGET) / np - 1) / ((BUDGET) / np);                                \
        for (int block = 0, r0 = 0; block < blocks; block++) {                                 \
          int mr = m / blocks + (block < m % blocks);                                          \
          switch (mr * 8 + np) { CASES default: break; }                                       \
          r0 += mr;                                                                            \
        }                                                                                      \
      }                                                                                        \
      p += np;                                                                                 \
    }                                                                                          \
  }

#define SPK_CASES_AVX512(T)                                                                    \
  SPK_CASE(T, 1, 1) SPK_CASE(T, 1, 2) SPK_CASE(T, 1, 3) SPK_CASE(T, 1, 4) SPK_CASE(T, 2, 1)     \
  SPK_CASE(T, 2, 2) SPK_CASE(T, 2, 3) SPK_CASE(T, 2, 4) SPK_CASE(T, 3, 1) SPK_CASE(T, 3, 2)     \
  SPK_CASE(T, 3, 3) SPK_CASE(T, 3, 4) SPK_CASE(T, 4, 1)                                         \
  SPK_CASE(T, 4, 2) SPK_CASE(T, 5, 1) SPK_CASE(T, 5, 2) SPK_CASE(T, 6, 1) SPK_CASE(T, 6, 2)     \
  SPK_CASE(T, 7, 1) SPK_CASE(T, 8, 1) SPK_CASE(T, 9, 1) SPK_CASE(T, 10, 1) SPK_CASE(T, 11, 1)   \
  SPK_CASE(T, 12, 1)
#define SPK_CASES_AVX2(T)                                                                      \
  SPK_CASE(T, 1, 1) SPK_CASE(T, 1, 2) SPK_CASE(T, 1, 3) SPK_CASE(T, 1, 4) SPK_CASE(T, 2, 1)     \
  SPK_CASE(T, 2, 2)                                                                            \
  SPK_CASE(T, 3, 1) SPK_CASE(T, 3, 2) SPK_CASE(T, 4, 1) SPK_CASE(T, 5, 1) SPK_CASE(T, 6, 1)

SPK_DRIVER(spk_gemm_f32_avx512, "avx512f", spk_tile_f32_avx512, spk_v16, 12, 4,
           SPK_CASES_AVX512(spk_tile_f32_avx512))
SPK_DRIVER(spk_gemm_f16_avx512, "avx512f", spk_tile_f16_avx512, spk_v16, 12, 2,
           SPK_CASES_AVX512(spk_tile_f16_avx512))
SPK_DRIVER(spk_gemm_f32_avx2, "avx2,fma,f16c", spk_tile_f32_avx2, spk_v8, 6, 4,
           SPK_CASES_AVX2(spk_tile_f32_avx2))
SPK_DRIVER(spk_gemm_f16_avx2, "avx2,fma,f16c", spk_tile_f16_avx2, spk_v8, 6, 2,
           SPK_CASES_AVX2(spk_tile_f16_avx2))

/// The packed GEMM for `isa` (SPK_AVX512 or SPK_AVX2), B in single (half = 0) or half
/// precision. Panel width: 32 columns for AVX-512, 16 for AVX2 (spk_panel_width).
/// Windows after the first start a_window floats (input) and c_window floats (output) later.
/// Row r's bias starts r·bias_row floats after `bias` (0: one bias for every row).
/// With a_list and c_list (else NULL), window w is at a_list[w] and c_list[w] instead: windows
/// anywhere in memory (several streams' states) share each weight read all the same.
static inline void spk_gemm(int isa, int half, int windows, ptrdiff_t a_window,
                            ptrdiff_t c_window, int m, int n, int k, int taps, const float *a,
                            ptrdiff_t lda, ptrdiff_t tap_stride, const void *packed,
                            const float *bias, ptrdiff_t bias_row, float *c, ptrdiff_t ldc,
                            int relu, const float *const *a_list, float *const *c_list) {
#define SPK_ARGS windows, a_window, c_window, m, n, k, taps, a, lda, tap_stride, packed, bias, bias_row, c, ldc, relu, a_list, c_list
  if (isa == SPK_AVX512) {
    if (half)
      spk_gemm_f16_avx512(SPK_ARGS);
    else
      spk_gemm_f32_avx512(SPK_ARGS);
  } else if (isa == SPK_AVX2) {
    if (half)
      spk_gemm_f16_avx2(SPK_ARGS);
    else
      spk_gemm_f32_avx2(SPK_ARGS);
  }
#undef SPK_ARGS
}

// Winograd F(2, 3)'s and F(4, 3)'s transforms, eight channels at a time in explicit vectors (the
// code generation does not vectorise loops on its own), the rest one by one.
#define SPK_LANES8(BODY8, BODY1)                                                               \
  int i = 0;                                                                                   \
  for (; i + 8 <= channels; i += 8) { BODY8 }                                                  \
  for (; i < channels; i++) { BODY1 }
#define SPK_AT8(p) (*(spk_v8 *)((p) + i))

/// Winograd F(2, 3)'s input transform of one tile, channel by channel: from input frames d0,
/// d0 + step, d0 + 2·step, d0 + 3·step, the four rows U1 = d0 − d2, U2 = d1 + d2,
/// U3 = d2 − d1, U4 = d1 − d3, `plane` floats apart from u.
__attribute__((target("avx2"))) static inline void spk_winograd_input(
    const float *d0, ptrdiff_t step, int channels, float *u, ptrdiff_t plane) {
  const float *a = d0, *b = d0 + step, *c = d0 + 2 * step, *d = d0 + 3 * step;
  float *u1 = u, *u2 = u + plane, *u3 = u + 2 * plane, *u4 = u + 3 * plane;
  SPK_LANES8(
      spk_v8 va = SPK_AT8(a); spk_v8 vb = SPK_AT8(b); spk_v8 vc = SPK_AT8(c);
      spk_v8 vd = SPK_AT8(d); SPK_AT8(u1) = va - vc; SPK_AT8(u2) = vb + vc;
      SPK_AT8(u3) = vc - vb; SPK_AT8(u4) = vb - vd;,
      u1[i] = a[i] - c[i]; u2[i] = b[i] + c[i]; u3[i] = c[i] - b[i]; u4[i] = b[i] - d[i];)
}

/// Its output transform with bias and ReLU: from the products m1…m4 (`plane` floats apart),
/// first = max(bias + m1 + m2 + m3, 0), second = max(bias + m2 − m3 − m4, 0).
__attribute__((target("avx2"))) static inline void spk_winograd_output(
    const float *m, ptrdiff_t plane, const float *bias, int channels, float *first,
    float *second) {
  const float *m1 = m, *m2 = m + plane, *m3 = m + 2 * plane, *m4 = m + 3 * plane;
  SPK_LANES8(
      spk_v8 vb = SPK_AT8(bias); spk_v8 v2 = SPK_AT8(m2); spk_v8 v3 = SPK_AT8(m3);
      SPK_AT8(first) = __builtin_elementwise_max(vb + SPK_AT8(m1) + v2 + v3, (spk_v8){0});
      SPK_AT8(second) = __builtin_elementwise_max(vb + v2 - v3 - SPK_AT8(m4), (spk_v8){0});,
      float x = bias[i] + m1[i] + m2[i] + m3[i]; float y = bias[i] + m2[i] - m3[i] - m4[i];
      first[i] = x > 0 ? x : 0; second[i] = y > 0 ? y : 0;)
}

/// Winograd F(4, 3)'s input transform of one tile (Lavin & Gray's Bᵀ for the points 0, ±1,
/// ±2): from input frames d0 … d5, `step` floats apart, the six rows U0 = 4d0 − 5d2 + d4,
/// U1 = −4d1 − 4d2 + d3 + d4, U2 = 4d1 − 4d2 − d3 + d4, U3 = −2d1 − d2 + 2d3 + d4,
/// U4 = 2d1 − d2 − 2d3 + d4, U5 = 4d1 − 5d3 + d5, `plane` floats apart from u.
__attribute__((target("avx2"))) static inline void spk_winograd4_input(
    const float *d0, ptrdiff_t step, int channels, float *u, ptrdiff_t plane) {
  const float *a = d0, *b = d0 + step, *c = d0 + 2 * step, *d = d0 + 3 * step,
              *e = d0 + 4 * step, *f = d0 + 5 * step;
  float *u0 = u, *u1 = u + plane, *u2 = u + 2 * plane, *u3 = u + 3 * plane,
        *u4 = u + 4 * plane, *u5 = u + 5 * plane;
  SPK_LANES8(
      spk_v8 va = SPK_AT8(a); spk_v8 vb = SPK_AT8(b); spk_v8 vc = SPK_AT8(c);
      spk_v8 vd = SPK_AT8(d); spk_v8 ve = SPK_AT8(e); spk_v8 vf = SPK_AT8(f);
      spk_v8 four_b = vb * 4.0f; spk_v8 sum12 = ve - vc * 4.0f; spk_v8 sum34 = ve - vc;
      spk_v8 diff12 = vd - four_b; spk_v8 diff34 = (vd - vb) * 2.0f;
      SPK_AT8(u0) = va * 4.0f - vc * 5.0f + ve; SPK_AT8(u1) = sum12 + diff12;
      SPK_AT8(u2) = sum12 - diff12; SPK_AT8(u3) = sum34 + diff34; SPK_AT8(u4) = sum34 - diff34;
      SPK_AT8(u5) = four_b - vd * 5.0f + vf;,
      u0[i] = 4 * a[i] - 5 * c[i] + e[i]; u1[i] = -4 * b[i] - 4 * c[i] + d[i] + e[i];
      u2[i] = 4 * b[i] - 4 * c[i] - d[i] + e[i]; u3[i] = -2 * b[i] - c[i] + 2 * d[i] + e[i];
      u4[i] = 2 * b[i] - c[i] - 2 * d[i] + e[i]; u5[i] = 4 * b[i] - 5 * d[i] + f[i];)
}

/// Its output transform (Aᵀ) with bias and ReLU: from the products m0 … m5 (`plane` floats
/// apart), y0 = m0 + m1 + m2 + m3 + m4, y1 = m1 − m2 + 2(m3 − m4), y2 = m1 + m2 + 4(m3 + m4),
/// y3 = m1 − m2 + 8(m3 − m4) + m5, each max(bias + y, 0) into `out`, `step` floats apart.
__attribute__((target("avx2"))) static inline void spk_winograd4_output(
    const float *m, ptrdiff_t plane, const float *bias, int channels, float *out,
    ptrdiff_t step) {
  const float *m0 = m, *m1 = m + plane, *m2 = m + 2 * plane, *m3 = m + 3 * plane,
              *m4 = m + 4 * plane, *m5 = m + 5 * plane;
  float *y0 = out, *y1 = out + step, *y2 = out + 2 * step, *y3 = out + 3 * step;
  SPK_LANES8(
      spk_v8 vb = SPK_AT8(bias); spk_v8 sum12 = SPK_AT8(m1) + SPK_AT8(m2);
      spk_v8 diff12 = SPK_AT8(m1) - SPK_AT8(m2); spk_v8 sum34 = SPK_AT8(m3) + SPK_AT8(m4);
      spk_v8 diff34 = SPK_AT8(m3) - SPK_AT8(m4); spk_v8 zero = {0};
      SPK_AT8(y0) = __builtin_elementwise_max(vb + SPK_AT8(m0) + sum12 + sum34, zero);
      SPK_AT8(y1) = __builtin_elementwise_max(vb + diff12 + diff34 * 2.0f, zero);
      SPK_AT8(y2) = __builtin_elementwise_max(vb + sum12 + sum34 * 4.0f, zero);
      SPK_AT8(y3) = __builtin_elementwise_max(vb + diff12 + diff34 * 8.0f + SPK_AT8(m5), zero);,
      float s12 = m1[i] + m2[i]; float d12 = m1[i] - m2[i]; float s34 = m3[i] + m4[i];
      float d34 = m3[i] - m4[i]; float x0 = bias[i] + m0[i] + s12 + s34;
      float x1 = bias[i] + d12 + 2 * d34; float x2 = bias[i] + s12 + 4 * s34;
      float x3 = bias[i] + d12 + 8 * d34 + m5[i]; y0[i] = x0 > 0 ? x0 : 0;
      y1[i] = x1 > 0 ? x1 : 0; y2[i] = x2 > 0 ? x2 : 0; y3[i] = x3 > 0 ? x3 : 0;)
}

#else

static inline int spk_instruction_set(void) { return SPK_NONE; }
static inline void spk_gemm(int isa, int half, int windows, ptrdiff_t a_window,
                            ptrdiff_t c_window, int m, int n, int k, int taps, const float *a,
                            ptrdiff_t lda, ptrdiff_t tap_stride, const void *packed,
                            const float *bias, ptrdiff_t bias_row, float *c, ptrdiff_t ldc,
                            int relu, const float *const *a_list, float *const *c_list) {}
static inline void spk_winograd_input(const float *d0, ptrdiff_t step, int channels, float *u,
                                      ptrdiff_t plane) {}
static inline void spk_winograd_output(const float *m, ptrdiff_t plane, const float *bias,
                                       int channels, float *first, float *second) {}
static inline void spk_winograd4_input(const float *d0, ptrdiff_t step, int channels, float *u,
                                       ptrdiff_t plane) {}
static inline void spk_winograd4_output(const float *m, ptrdiff_t plane, const float *bias,
                                        int channels, float *out, ptrdiff_t step) {}

#endif

/// Columns per packed panel for `isa`: two vectors.
static inline int spk_panel_width(int isa) { return isa == SPK_AVX512 ? 32 : 16; }

#endif
