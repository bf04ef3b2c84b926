// Integer arithmetic for the triplet dynamic programme, in two widths.
//
// Both types expose the same static functions so that one kernel template
// serves both precisions:
//   I32  - one cell per 32-bit lane;
//   S16x2 - two independent cells (two triplets) per 32-bit lane, one in
//           each signed 16-bit half;
//   S16x2N - S16x2 for tables whose addends are all >= 0 (see addf).
// On Hopper (sm_90) the add-and-max steps use the DPX instructions; other
// targets use a portable form with the same results. Additions wrap; the
// launcher only routes a triplet here when no value can leave the range.
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TRIMSA_DPX 1
#else
#define TRIMSA_DPX 0
#endif

// A 32-bit IMAD (a * one + b; one == 1 at run time, unknown to the compiler): it
// runs on the FMA pipe, beside the DPX operations on the ALU pipe
// (eval/experiments/kernels/results/pipes-H100-2026-11-23.md), and the compiler cannot
// fuse it into a maximum that reads it (a plain sum becomes VIADDMNMX).
__device__ __forceinline__ unsigned imad_add(unsigned a, unsigned b, int one) {
    unsigned d;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(one), "r"(b));
    return d;
}

struct I32 {
    typedef int T;
    static constexpr int NH = 1;
    // addf (below) is an exact addition
    static constexpr bool IMADD = true;
    // the largest and smallest value of a lane, as ints for pack()
    static constexpr int TOP = 0x7fffffff, BOTTOM = (int)0x80000000;
    __device__ __forceinline__ static T add(T a, T b) { return a + b; }
    // a + b as an IMAD (imad_add)
    __device__ __forceinline__ static T addf(T a, T b, int one) { return (T)imad_add(a, b, one); }
    // max(a + b, c)
    __device__ __forceinline__ static T addmax(T a, T b, T c) {
#if TRIMSA_DPX
        return __viaddmax_s32(a, b, c);
#else
        return ::max(a + b, c);
#endif
    }
    // max(a + b, 0), for b <= 0 (local mode, b = 2*gap; the launcher sends local mode with
    // gap > 0 to the CPU). Written as the DPX relu form max(a + b, b, 0), which ptxas keeps
    // as one VIADDMNMX.RELU; from __viaddmax_s32(a, b, 0) it emits an IMAD and a VIMNMX with
    // RZ, two instructions in the wavefront's dependency chain (32-bit local tall tile block:
    // 1110 instructions against 1225;
    // eval/experiments/kernels/results/kernels-H100-2026-11-23-s13-relu.md).
    __device__ __forceinline__ static T addrelu(T a, T b) {
#if TRIMSA_DPX
        return __viaddmax_s32_relu(a, b, b);
#else
        return ::max(a + b, 0);
#endif
    }
    // min(a + b, c)
    __device__ __forceinline__ static T addmin(T a, T b, T c) {
#if TRIMSA_DPX
        return __viaddmin_s32(a, b, c);
#else
        return ::min(a + b, c);
#endif
    }
    __device__ __forceinline__ static T max3(T a, T b, T c) {
#if TRIMSA_DPX
        return __vimax3_s32(a, b, c);
#else
        return ::max(::max(a, b), c);
#endif
    }
    __device__ __forceinline__ static T max(T a, T b) { return ::max(a, b); }
    __device__ __forceinline__ static T min(T a, T b) { return ::min(a, b); }
    __device__ __forceinline__ static T splat(int v) { return v; }
    __device__ __forceinline__ static T pack(const int* v) { return v[0]; }
    __device__ __forceinline__ static int half(T v, int) { return v; }
    // folded with min(): keeps a cell (keep = true) or drops it below everything
    __device__ __forceinline__ static T mask(int, bool keep) { return keep ? 0x7fffffff : (int)0x80000000; }
    // folded with min(): keeps the cell where keep[0], else drops it below everything
    __device__ __forceinline__ static T keep(const bool (&k)[1]) { return mask(0, k[0]); }
};

struct S16x2 {
    typedef unsigned int T;
    static constexpr int NH = 2;
    // a 32-bit addition of two packed words is not a lane-wise one in general
    static constexpr bool IMADD = false;
    static constexpr int TOP = 0x7fff, BOTTOM = -0x8000;
    __device__ __forceinline__ static T add(T a, T b) { return __vadd2(a, b); }
    __device__ __forceinline__ static T addmax(T a, T b, T c) {
#if TRIMSA_DPX
        return __viaddmax_s16x2(a, b, c);
#else
        return __vmaxs2(__vadd2(a, b), c);
#endif
    }
    // max(a + b, 0) lane-wise (ptxas keeps this one VIADDMNMX.S16x2)
    __device__ __forceinline__ static T addrelu(T a, T b) { return addmax(a, b, 0u); }
    __device__ __forceinline__ static T addmin(T a, T b, T c) {
#if TRIMSA_DPX
        return __viaddmin_s16x2(a, b, c);
#else
        return __vmins2(__vadd2(a, b), c);
#endif
    }
    __device__ __forceinline__ static T max3(T a, T b, T c) {
#if TRIMSA_DPX
        return __vimax3_s16x2(a, b, c);
#else
        return __vmaxs2(__vmaxs2(a, b), c);
#endif
    }
    __device__ __forceinline__ static T max(T a, T b) { return __vmaxs2(a, b); }
    __device__ __forceinline__ static T min(T a, T b) { return __vmins2(a, b); }
    __device__ __forceinline__ static T splat(int v) { return (unsigned)(v & 0xffff) * 0x10001u; }
    __device__ __forceinline__ static T pack(const int* v) {
        return (unsigned)(v[0] & 0xffff) | ((unsigned)(v[1] & 0xffff) << 16);
    }
    __device__ __forceinline__ static int half(T v, int h) { return (int)(short)(v >> (16 * h)); }
    // half h keeps its cell (keep = true) or drops it; the other half is dropped
    __device__ __forceinline__ static T mask(int h, bool keep) {
        return (keep ? 0x7fffu : 0x8000u) << (16 * h) | 0x8000u << (16 * (1 - h));
    }
    // half h keeps its cell where keep[h], else drops it
    __device__ __forceinline__ static T keep(const bool (&k)[2]) {
        return (k[0] ? 0x7fffu : 0x8000u) | (k[1] ? 0x7fffu : 0x8000u) << 16;
    }
};

// S16x2 whose addends b of addf are >= 0 in both halves. A 32-bit addition of the
// packed words a + b is lane-wise exactly when the low half does not carry into the
// high one: with 0 <= b_lo, that is when a_lo and a_lo + b_lo have the same sign
// (as 16-bit values; any carry out of the high half leaves the word, as a lane-wise
// wrap would). The launcher takes this type only for tables whose shifted scores are
// all >= 0 (_gpu_plan.imad_ok), where the kernel adds them with addf only to values
// that are >= 0 (real cells of H' in global and semiglobal mode) or derived from the
// sentinel (< -B, and < 0 after any addition, by the 16-bit rule).
struct S16x2N : S16x2 {
    static constexpr bool IMADD = true;
    __device__ __forceinline__ static T addf(T a, T b, int one) { return imad_add(a, b, one); }
};
