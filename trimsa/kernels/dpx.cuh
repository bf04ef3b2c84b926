// Integer arithmetic for the triplet dynamic programme, in two widths.
//
// Both types expose the same static functions so that one kernel template
// serves both precisions:
//   I32  - one cell per 32-bit lane;
//   S16x2 - two independent cells (two triplets) per 32-bit lane, one in
//           each signed 16-bit half.
// On Hopper (sm_90) the add-and-max steps use the DPX instructions; other
// targets use a portable form with the same results. Additions wrap; the
// launcher only routes a triplet here when no value can leave the range.
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TRIMSA_DPX 1
#else
#define TRIMSA_DPX 0
#endif

struct I32 {
    typedef int T;
    static constexpr int NH = 1;
    // the largest and smallest value of a lane, as ints for pack()
    static constexpr int TOP = 0x7fffffff, BOTTOM = (int)0x80000000;
    __device__ __forceinline__ static T add(T a, T b) { return a + b; }
    // max(a + b, c)
    __device__ __forceinline__ static T addmax(T a, T b, T c) {
#if TRIMSA_DPX
        return __viaddmax_s32(a, b, c);
#else
        return ::max(a + b, c);
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
};

struct S16x2 {
    typedef unsigned int T;
    static constexpr int NH = 2;
    static constexpr int TOP = 0x7fff, BOTTOM = -0x8000;
    __device__ __forceinline__ static T add(T a, T b) { return __vadd2(a, b); }
    __device__ __forceinline__ static T addmax(T a, T b, T c) {
#if TRIMSA_DPX
        return __viaddmax_s16x2(a, b, c);
#else
        return __vmaxs2(__vadd2(a, b), c);
#endif
    }
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
};
