// Exact 3-way alignment with natural affine gaps (global, semiglobal, local):
// scores (affine_score<TJ, false>), and pointer words of every cell for
// tracebacks (affine_score<TJ, true>, then affine_trace).
//
// The recurrence is the one of trimsa/triplet/_affine.py (docs/engine.md,
// "Affine gaps"): 13 states per cell, and 13 exports per cell, each the best
// state a successor can follow with that successor's gap openings paid.
// Exports: 0 T (best state), 1 Ga (move - b c), 2 Gb (a - c), 3 Gc (a b -),
// 4-6 Fa (a - -), 7-9 Fb (- b -), 10-12 Fc (- - c). Cell (i, j, k) reads
//   T  of (i-1, j-1, k-1)   Gc of (i-1, j-1, k)   Gb of (i-1, j, k-1)
//   Ga of (i, j-1, k-1)     Fa of (i-1, j, k)     Fb of (i, j-1, k)   Fc of (i, j, k-1).
//
// Layout. One warp scores one triplet at a time, or one strip of it (SPLIT, see
// affine_score) (A: layers i, B: rows j,
// C: columns k). The (j, k) plane is cut into strips of TJ rows; a strip is
// swept in chunks of 32 columns, lane q owning column k0 + q and the strip's
// TJ cells of it, through every layer. Lane q works one layer behind lane
// q - 1 (a wavefront), so the left neighbour's column at the same layer
// arrives by warp shuffle. Between strips, the last row of a strip (Fb, Ga,
// Gc, T of every (i, k)) goes through a per-warp buffer in global memory,
// jface, stored by chunk and wavefront step (lane q of step t holds layer
// t - q) so that the 32 lanes of a step touch one line per word; between chunks, the last lane's column (Ga, Fc, Gb, T of every
// (i, j)) through kface. 32-bit values; scores are bounded by the caller
// (|H| < 2^29) and NEG = -2^29 stays far from overflow.
//
// Packed 16 bits (A = S16x2, score only): a warp sweeps two triplets at once, one in
// each signed 16-bit half of every value, over the larger of their lengths; each half
// reads only its own triplet's cells. The launcher sends a triplet here only where
// its bound proves that no value the sweep uses leaves 16 bits and that no sentinel
// can reach its score (_gpu_affine.packed_bound, docs/engine.md), and runs global
// mode on the shifted scores (sub - 2 ge, extension 0), adding 2 ge (la + lb + lc)
// back.

#include "dpx.cuh"

#define TRIMSA_FULL 0xffffffffu
#define NEG (-(1 << 29))
#define NSTATE 13
// blocks of 128 threads per SM the packed 16-bit score sweep is compiled for (it needs
// more registers than the 32-bit one: the two triplets' lengths, sequences and residues)
#ifndef TRIMSA_AFFINE16_BLOCKS
#define TRIMSA_AFFINE16_BLOCKS 4
#endif

__device__ __forceinline__ int mx(int a, int b) { return max(a, b); }
__device__ __forceinline__ int mx3(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return __vimax3_s32(a, b, c);
#else
    return max(max(a, b), c);
#endif
}
// max(a + b, c)
__device__ __forceinline__ int addmax(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return __viaddmax_s32(a, b, c);
#else
    return max(a + b, c);
#endif
}

// The 13 exports X of a cell with states S (o = gap_open <= 0, o2 = 2 o), in the
// arithmetic A (dpx.cuh): one cell per lane (I32) or two, one per 16-bit half (S16x2).
template <class A>
__device__ __forceinline__ void exports(const typename A::T (&S)[NSTATE], typename A::T o,
                                        typename A::T o2, typename A::T (&X)[NSTATE]) {
    typedef typename A::T T;
    const T Aa = A::max3(S[4], S[5], S[6]);
    const T B = A::max3(S[7], S[8], S[9]);
    const T C = A::max3(S[10], S[11], S[12]);
    const T M = A::max3(A::max3(S[0], S[1], S[2]), A::max3(S[3], Aa, B), C);
    X[0] = M;
    X[1] = A::max(A::addmax(M, o2, A::add(A::max(B, C), o)), A::max3(S[3], S[9], S[12]));
    X[2] = A::max(A::addmax(M, o2, A::add(A::max(Aa, C), o)), A::max3(S[2], S[6], S[11]));
    X[3] = A::max(A::addmax(M, o2, A::add(A::max(Aa, B), o)), A::max3(S[1], S[5], S[8]));
    X[4] = A::addmax(A::max(S[0], S[3]), o2, S[4]);
    X[5] = A::addmax(A::max(S[1], S[8]), o, A::addmax(B, o2, S[5]));
    X[6] = A::addmax(A::max(S[2], S[11]), o, A::addmax(C, o2, S[6]));
    X[7] = A::addmax(A::max(S[0], S[2]), o2, S[7]);
    X[8] = A::addmax(A::max(S[1], S[5]), o, A::addmax(Aa, o2, S[8]));
    X[9] = A::addmax(A::max(S[3], S[12]), o, A::addmax(C, o2, S[9]));
    X[10] = A::addmax(A::max(S[0], S[1]), o2, S[10]);
    X[11] = A::addmax(A::max(S[2], S[6]), o, A::addmax(Aa, o2, S[11]));
    X[12] = A::addmax(A::max(S[3], S[9]), o, A::addmax(B, o2, S[12]));
}

// Traceback pointers (TRACE). A pointer word holds, per export x at bit 4 x,
// the lowest-numbered state q that attains it (as _affine.pointer_word), and
// bit ZERO_BIT when state 0 holds exactly 0. The kernel gets them from the
// same max formulas run on keys K[q] = 16 S[q] + 15 - q (gap open 16 o): the
// largest key is the best value and, among equal values, the lowest q.
// States are first raised to NEG_KEY so that the keys fit 32 bits; the caller
// only traces triplets whose scores stay within +-TRACE_BOUND, so the clamp
// changes no state a path can use, only the values of unreachable ones.
#define ZERO_BIT 52
#define NEG_KEY (-(1 << 26))

__device__ __forceinline__ long long trace_index(int i, int j, int k, int la, int lb) {
    return ((((long long)(k >> 5) * (lb + 1) + j) * (la + 32) + i + (k & 31)) << 5) + (k & 31);
}

// Words per (i, k) of jface and per (i, row) of kface.
#define FW 6

// Progress flags of the strips of a split triplet (see affine_score): a strip publishes
// how many of its chunks are done; the strip below waits for the chunk it needs.
__device__ __forceinline__ int load_acquire(const int* p) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void store_release(int* p, int v) {
    asm volatile("st.release.gpu.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
// a row-buffer word (split triplets: from L2, since another SM may have written it)
template <bool SPLIT, class V>
__device__ __forceinline__ V row_load(const V* p) {
    if constexpr (SPLIT) return __ldcg(p);
    else return *p;
}
// every lane's writes so far are visible before lane 0 stores v
__device__ __forceinline__ void publish(int* p, int v, int lane) {
    __threadfence();
    __syncwarp();
    if (lane == 0) store_release(p, v);
}
// lane 0 waits until *p >= v; then every lane sees what was written before it was stored
__device__ __forceinline__ void await(const int* p, int v, int lane) {
    if (lane == 0) {
        while (load_acquire(p) < v) __nanosleep(64);
    }
    __syncwarp();
    __threadfence();
}

// With TRACE, every cell's pointer word goes to ptr + ptr_off[item], laid out
// by chunk of 32 columns, row j, wavefront step t and lane (trace_index), so
// that the 32 lanes of a step write one contiguous run; where[item] receives
// the index (i (lb + 1) + j) (lc + 1) + k of the cell the mode reads (ties: the
// lowest index, as the CPU's first in (i, j, k) order). The triplet's rows
// must be in the CPU's order.
// Bands (BAND, global; pointer words with TRACE, the score alone without): triplet `item` keeps, in layer i, the
// cells jlo..jhi x klo..khi of band[4 (band_off[item] + i) + 0..3]; its pointer words
// are laid out by layer (lay_off[band_off[item] + i] + (j - jlo) (khi - klo + 1) + k -
// klo, from ptr + ptr_off[item]), as the CPU's _affine.band_layout. Each tile (strip x
// chunk) sweeps only the layers where the band meets it (both bounds never decrease
// with i, so they are an interval); cells outside the band hold NEG, and a face buffer
// entry of a layer its writer did not sweep reads as NEG.
// Subproblems (SUB) take per item the state the path starts in and the faces it may not
// touch (sub_if), and with lastbuf the states of the last layer (with TRACE: of the far
// corner). Their `mode` packs the rule where paths start (bits 0-1: 0 at the origin, 1
// and 2 on the near faces, 2 with the local floor), the rule of the cells read for the
// best score (bits 2-3, as the modes), and bit 4: cells on the far faces end every path
// (exports other than T closed; the reversed sweep that finds where a semiglobal or
// local alignment starts). With `where`, SUB sweeps also report the cell of the best
// score (the lowest index on ties, as with TRACE).
// Split triplets (SPLIT, with unit_off): a work unit is then one strip of TJ rows of a
// triplet, not the whole triplet, so that a batch of fewer triplets than resident warps
// still fills the GPU. Triplet t has the units unit_off[t] .. unit_off[t + 1] - 1
// (strip s = unit - unit_off[t], rows s TJ .. s TJ + TJ - 1); the warps take them in
// the order unit_order, where each strip comes after the one above it (the host
// deals them round the triplets: strip 0 of each, then strip 1, ..., since a triplet
// of C chunks keeps at most C of its strips busy at once). Strip s
// reads the last row of strip s - 1 from its triplet's jface slot 2 t + (s - 1) % 2 and
// writes its own to slot 2 t + s % 2; before chunk c it waits until strip s - 1 has
// published prog[unit - 1] >= c + 1. A strip only waits on a unit taken before its own,
// by a warp that is running, so the waits end. Two slots suffice: strip s + 2 writes
// chunk c of a slot only after strip s + 1, its reader, is done with chunk c. Each strip
// stores its best (and cell) in part_best / part_idx[unit] before it publishes its last
// chunk, and the triplet's last strip, which ends last, reduces them into out / where.
// jface then holds 2 n slots of jface_words, not one per warp.
__device__ __forceinline__ int first_at_least(const int* b, int w, int la, int v) {
    // the first layer i with b[4 i + w] >= v (la + 1 when none)
    int lo = 0, hi = la + 1;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (b[4 * mid + w] >= v) hi = mid; else lo = mid + 1;
    }
    return lo;
}
__device__ __forceinline__ int last_at_most(const int* b, int w, int la, int v) {
    // the last layer i with b[4 i + w] <= v (-1 when none)
    return first_at_least(b, w, la, v + 1) - 1;
}
// The layers [ib, ie] a tile (rows j0..j0+TJ-1, columns k0..k0+31) sweeps: those where
// the band meets the tile with the row above and the column on its left, whose cells
// its first layer reads. Before ib every cell the tile reads is outside the band (NEG,
// as the registers start), after ie none of its own is in it.
template <int TJ>
__device__ __forceinline__ void tile_layers(const int* b, int la, int j0, int k0, int& ib, int& ie) {
    ib = max(first_at_least(b, 1, la, max(j0 - 1, 0)), first_at_least(b, 3, la, max(k0 - 1, 0)));
    ie = min(last_at_most(b, 0, la, j0 + TJ - 1), last_at_most(b, 2, la, k0 + 31));
}

// Subproblems of the divide and conquer (SUB, global): item `item` starts in state
// sub_if[2 item] at the origin, and the faces of bits sub_if[2 item + 1] (1: i = 0,
// 2: j = 0, 4: k = 0) are closed after it (as _affine's init and forbid). Without
// TRACE the states of every cell of the last layer go to lastbuf + last_off[item] +
// (j (lc + 1) + k) 13 (_affine.last_states); with TRACE the far corner's 13 states.
template <int TJ, bool TRACE, bool BAND, bool SUB, bool SPLIT, class A>
__global__ void __launch_bounds__(128, SPLIT ? (TRACE ? 3 : 4) : (A::NH == 2 ? TRIMSA_AFFINE16_BLOCKS : 0))
affine_score(const unsigned char* __restrict__ codes,
             const long long* __restrict__ offsets,
             const int* __restrict__ trip,     // (n, 3): A, B, C sequence indices
             int n,
             const int* __restrict__ subtab,   // (KP, KP)
             int KP, int go, int ge, int mode, int neg,
             int* __restrict__ jface, long long jface_words,   // per warp
             int* __restrict__ kface, long long kface_words,   // per warp
             long long* __restrict__ out,
             int* __restrict__ next_item,
             unsigned long long* __restrict__ ptr,
             const long long* __restrict__ ptr_off,
             long long* __restrict__ where,
             const int* __restrict__ band,
             const long long* __restrict__ band_off,
             const long long* __restrict__ lay_off,
             const int* __restrict__ sub_if,
             int* __restrict__ lastbuf,
             const long long* __restrict__ last_off,
             int units,
             const long long* __restrict__ unit_off,
             const int* __restrict__ unit_order,
             int* __restrict__ prog,
             int* __restrict__ part_best,
             long long* __restrict__ part_idx)
{
    typedef typename A::T T;
    // packed halves (two triplets per unit): score only, one warp per unit
    constexpr int NH = A::NH;
    static_assert(NH == 1 || (!TRACE && !BAND && !SUB && !SPLIT),
                  "packed 16-bit arithmetic is for score-only sweeps of whole triplets");
    __shared__ int sub_s[32 * 32];
    for (int x = threadIdx.x; x < KP * KP; x += blockDim.x) sub_s[(x / KP) * 32 + x % KP] = subtab[x];
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int gwarp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    constexpr bool split = SPLIT;
    T* kf = reinterpret_cast<T*>(kface + (long long)gwarp * kface_words);
    // the sentinel: NEG in 32 bits, the launcher's bound in 16 (_gpu_affine.packed_bound)
    const T ng = A::splat(NH == 1 ? NEG : neg);
    const T e2 = A::splat(2 * ge), o1 = A::splat(go), o2 = A::splat(2 * go), zero = A::splat(0);

    for (;;) {
        int unit = 0;
        if (lane == 0) unit = atomicAdd(next_item, 1);
        unit = __shfl_sync(TRIMSA_FULL, unit, 0);
        if (unit >= units) break;
        int item = unit, strip = 0;
        if (split) {
            unit = unit_order[unit];
            if (lane == 0) {   // the triplet t with unit_off[t] <= unit < unit_off[t + 1]
                int lo = 0, hi = n;
                while (hi - lo > 1) {
                    const int mid = (lo + hi) >> 1;
                    if (unit_off[mid] <= unit) lo = mid; else hi = mid;
                }
                item = lo;
            }
            item = __shfl_sync(TRIMSA_FULL, item, 0);
            strip = unit - (int)unit_off[item];
        }
        // the row buffer read (the strip above's last row) and written (this strip's)
        const T* jrd = reinterpret_cast<const T*>(jface + (long long)gwarp * jface_words);
        T* jwr = reinterpret_cast<T*>(jface + (long long)gwarp * jface_words);
        if (split) {
            jrd = reinterpret_cast<const T*>(jface + (2 * (long long)item + ((strip + 1) & 1)) * jface_words);
            jwr = reinterpret_cast<T*>(jface + (2 * (long long)item + (strip & 1)) * jface_words);
        }
        // half h scores triplet NH item + h; the sweep covers the largest of them (cells
        // past a half's own lengths never feed its cells, and are not read for its score)
        const unsigned char *ah[NH], *bh[NH], *ch[NH];
        int lah[NH], lbh[NH], lch[NH];
#pragma unroll
        for (int h = 0; h < NH; ++h) {
            const int* tr = trip + 3 * (NH * item + h);
            ah[h] = codes + offsets[tr[0]];
            bh[h] = codes + offsets[tr[1]];
            ch[h] = codes + offsets[tr[2]];
            lah[h] = (int)(offsets[tr[0] + 1] - offsets[tr[0]]);
            lbh[h] = (int)(offsets[tr[1] + 1] - offsets[tr[1]]);
            lch[h] = (int)(offsets[tr[2] + 1] - offsets[tr[2]]);
        }
        int la = lah[0], lb = lbh[0], lc = lch[0];
#pragma unroll
        for (int h = 1; h < NH; ++h) {
            la = max(la, lah[h]);
            lb = max(lb, lbh[h]);
            lc = max(lc, lch[h]);
        }
        T best = ng;
        long long bidx = 0x7fffffffffffffffll;
        unsigned long long* P = TRACE ? ptr + ptr_off[item] : nullptr;
        const int* bd = BAND ? band + 4 * band_off[item] : nullptr;
        const int init = SUB ? sub_if[2 * item] : 0;
        const int forbid = SUB ? sub_if[2 * item + 1] : 0;
        const int smode = SUB ? (mode & 3) : mode;          // where paths start
        const int emode = SUB ? ((mode >> 2) & 3) : mode;   // which cells are read
        const bool block = SUB && ((mode >> 4) & 1);
        const bool track = TRACE || (SUB && where != nullptr);
        int* last = (SUB && lastbuf != nullptr) ? lastbuf + last_off[item] : nullptr;
        const long long* lo_ = BAND ? lay_off + band_off[item] : nullptr;

        // split: the one strip (j0 > 0 exactly when there is a strip above to wait for)
        for (int j0 = strip * TJ; j0 <= lb; j0 += TJ) {
            for (int k0 = 0; k0 <= lc; k0 += 32) {
                if (split) {
                    if (k0 > 0) publish(prog + unit, k0 >> 5, lane);
                    if (j0 > 0) await(prog + unit - 1, (k0 >> 5) + 1, lane);
                }
                // layers swept: all, or where the band meets the tile (and, for the
                // face buffers, where it met the strip above and the chunk on the left)
                int ib = 0, ie = la, ibU = 0, ieU = la, ibL = 0, ieL = la;
                if (BAND) {
                    tile_layers<TJ>(bd, la, j0, k0, ib, ie);
                    if (ib > ie) continue;
                    if (j0 > 0) tile_layers<TJ>(bd, la, j0 - TJ, k0, ibU, ieU);
                    if (k0 > 0) tile_layers<TJ>(bd, la, j0, k0 - 32, ibL, ieL);
                }
                const int k = k0 + lane;
                const bool col = k <= lc;
                // residues of column k and of the strip's rows, per half (past a half's
                // sequence: code 0, whose cells are never read)
                int ck[NH], bres[TJ][NH];
                T sbc[TJ];
#pragma unroll
                for (int h = 0; h < NH; ++h) ck[h] = (col && k > 0 && k <= lch[h]) ? ch[h][k - 1] : 0;
#pragma unroll
                for (int r = 0; r < TJ; ++r) {
                    const int j = j0 + r;
                    int v[NH];
#pragma unroll
                    for (int h = 0; h < NH; ++h) {
                        bres[r][h] = (j > 0 && j <= lbh[h]) ? bh[h][j - 1] : 0;
                        v[h] = sub_s[bres[r][h] * 32 + ck[h]];
                    }
                    sbc[r] = A::pack(v);
                }
                // own column, layer i-1: Fa and Gc of the strip's rows; Gc of the row above
                T fa[TJ][3], gc[TJ], up_gc = ng;
                // left column, layer i-1: T and Gb (index 0: row above the strip, r + 1: row r)
                T nt[TJ + 1], ngb[TJ + 1];
#pragma unroll
                for (int r = 0; r < TJ; ++r) {
                    fa[r][0] = fa[r][1] = fa[r][2] = ng;
                    gc[r] = ng;
                }
#pragma unroll
                for (int r = 0; r <= TJ; ++r) nt[r] = ngb[r] = ng;
                // what this lane publishes for its right neighbour (layer i of column k)
                T pga[TJ + 1], pt[TJ + 1], pgb[TJ + 1], pfc[TJ + 1][3];
#pragma unroll
                for (int r = 0; r <= TJ; ++r) {
                    pga[r] = pt[r] = pgb[r] = ng;
                    pfc[r][0] = pfc[r][1] = pfc[r][2] = ng;
                }

                for (int t = ib; t < ie + 1 + 31; ++t) {
                    const int i = t - lane;
                    const bool live = col && i >= ib && i <= ie;
                    // the left column at this layer (lane q - 1 published it last step)
                    T cga[TJ + 1], ct[TJ + 1], cgb[TJ + 1], cfc[TJ + 1][3];
#pragma unroll
                    for (int r = 0; r <= TJ; ++r) {
                        // row 0 (above the strip) carries Ga and T only
                        cga[r] = __shfl_up_sync(TRIMSA_FULL, pga[r], 1);
                        ct[r] = __shfl_up_sync(TRIMSA_FULL, pt[r], 1);
                        cgb[r] = r ? __shfl_up_sync(TRIMSA_FULL, pgb[r], 1) : ng;
#pragma unroll
                        for (int z = 0; z < 3; ++z)
                            cfc[r][z] = r ? __shfl_up_sync(TRIMSA_FULL, pfc[r][z], 1) : ng;
                    }
                    if (lane == 0) {
                        if (k0 > 0 && i >= ibL && i <= ieL) {
                            const T* src = kf + (long long)i * (TJ + 1) * FW;
#pragma unroll
                            for (int r = 0; r <= TJ; ++r) {
                                cga[r] = src[r * FW + 0];
                                ct[r] = src[r * FW + 1];
                                cgb[r] = src[r * FW + 2];
                                cfc[r][0] = src[r * FW + 3];
                                cfc[r][1] = src[r * FW + 4];
                                cfc[r][2] = src[r * FW + 5];
                            }
                        } else {
#pragma unroll
                            for (int r = 0; r <= TJ; ++r) {
                                cga[r] = ct[r] = cgb[r] = ng;
                                cfc[r][0] = cfc[r][1] = cfc[r][2] = ng;
                            }
                        }
                    }
                    if (live) {
                        // the row above the strip at this layer (previous strip, or nothing)
                        T ufb0 = ng, ufb1 = ng, ufb2 = ng, uga = ng, ugc = ng, ut = ng;
                        // jface of this chunk, by step: word w of lane q at step t sits at
                        // ((t * FW + w) * 32 + q), so that a warp's access is one 128-byte line
                        const long long jo = ((long long)(k0 >> 5) * (la + 32) + t) * FW * 32 + lane;
                        const T* jr = jrd + jo;
                        if (j0 > 0 && i >= ibU && i <= ieU) {
                            // (split: past L1, another SM wrote it)
                            ufb0 = row_load<SPLIT>(jr); ufb1 = row_load<SPLIT>(jr + 32);
                            ufb2 = row_load<SPLIT>(jr + 64); uga = row_load<SPLIT>(jr + 96);
                            ugc = row_load<SPLIT>(jr + 128); ut = row_load<SPLIT>(jr + 160);
                        }
                        int ai[NH];
                        T sac;
                        {
                            int v[NH];
#pragma unroll
                            for (int h = 0; h < NH; ++h) {
                                ai[h] = (i > 0 && i <= lah[h]) ? ah[h][i - 1] * 32 : 0;
                                v[h] = sub_s[ai[h] + ck[h]];
                            }
                            sac = A::pack(v);
                        }
                        // this layer's band (BAND): rows jl..jh, and whether column k is in it
                        int jl = 0, jh = lb;
                        bool kin = true;
                        long long lrow = 0;
                        int wk = 0;
                        if (BAND) {
                            jl = bd[4 * i];
                            jh = bd[4 * i + 1];
                            const int kl = bd[4 * i + 2], kh = bd[4 * i + 3];
                            kin = k >= kl && k <= kh;
                            wk = kh - kl + 1;
                            if (TRACE) lrow = lo_[i] - (long long)jl * wk + (k - kl);
                        }
                        // Fb of the row above (layer i), Gc of the row above (layer i-1)
                        T fb0 = ufb0, fb1 = ufb1, fb2 = ufb2, gcu = up_gc;
                        pga[0] = uga;
                        pt[0] = ut;
                        pgb[0] = ng;
                        pfc[0][0] = pfc[0][1] = pfc[0][2] = ng;
#pragma unroll
                        for (int r = 0; r < TJ; ++r) {
                            const int j = j0 + r;
                            T X[NSTATE];
                            if (j <= lb && (!BAND || (kin && j >= jl && j <= jh))) {
                                T S[NSTATE];
                                const bool fresh = (smode == 0) ? (i == 0 && j == 0 && k == 0)
                                                               : (i == 0 || j == 0 || k == 0);
                                const bool closed = SUB && !fresh
                                                    && (((forbid & 1) && i == 0) || ((forbid & 2) && j == 0)
                                                        || ((forbid & 4) && k == 0));
                                if (fresh || closed) {
#pragma unroll
                                    for (int s = 0; s < NSTATE; ++s) S[s] = ng;
                                    if (fresh) S[init] = zero;
                                } else {
                                    T sab;
                                    {
                                        int v[NH];
#pragma unroll
                                        for (int h = 0; h < NH; ++h) v[h] = sub_s[ai[h] + bres[r][h]];
                                        sab = A::pack(v);
                                    }
                                    S[0] = A::add(A::add(nt[r], sab), A::add(sac, sbc[r]));
                                    S[1] = A::add(gcu, A::add(sab, e2));
                                    S[2] = A::add(ngb[r + 1], A::add(sac, e2));
                                    S[3] = A::add(cga[r], A::add(sbc[r], e2));
                                    S[4] = A::add(fa[r][0], e2);
                                    S[5] = A::add(fa[r][1], e2);
                                    S[6] = A::add(fa[r][2], e2);
                                    S[7] = A::add(fb0, e2);
                                    S[8] = A::add(fb1, e2);
                                    S[9] = A::add(fb2, e2);
                                    S[10] = A::add(cfc[r + 1][0], e2);
                                    S[11] = A::add(cfc[r + 1][1], e2);
                                    S[12] = A::add(cfc[r + 1][2], e2);
                                    if (smode == 2) S[0] = A::max(S[0], zero);
                                }
                                if constexpr (SUB) {
                                    if (last != nullptr && i == la && (!TRACE || (j == lb && k == lc))) {
                                        int* dst = TRACE ? last : last + ((long long)j * (lc + 1) + k) * NSTATE;
#pragma unroll
                                        for (int s = 0; s < NSTATE; ++s) dst[s] = S[s];
                                    }
                                }
                                if constexpr (TRACE) {
                                    int K[NSTATE], XK[NSTATE];
#pragma unroll
                                    for (int q = 0; q < NSTATE; ++q) K[q] = mx(S[q], NEG_KEY) * 16 + 15 - q;
                                    exports<I32>(K, 16 * go, 32 * go, XK);
                                    unsigned long long w = S[0] == 0 ? 1ull << ZERO_BIT : 0ull;
#pragma unroll
                                    for (int x = 0; x < NSTATE; ++x) {
                                        X[x] = XK[x] >> 4;
                                        w |= (unsigned long long)(15 - (XK[x] & 15)) << (4 * x);
                                    }
                                    if (BAND) P[lrow + (long long)j * wk] = w;
                                    else P[trace_index(i, j, k, la, lb)] = w;
                                } else {
                                    exports<A>(S, o1, o2, X);
                                }
                                if (block && (i == la || j == lb || k == lc)) {
#pragma unroll
                                    for (int x = 1; x < NSTATE; ++x) X[x] = ng;
                                }
                                if constexpr (NH == 1) {
                                    const bool read = (emode == 2) || (emode == 1 && (i == la || j == lb || k == lc))
                                                      || (i == la && j == lb && k == lc);
                                    if (track) {
                                        const long long idx = ((long long)i * (lb + 1) + j) * (lc + 1) + k;
                                        if (read && (X[0] > best || (X[0] == best && idx < bidx))) {
                                            best = X[0];
                                            bidx = idx;
                                        }
                                    } else if (read) {
                                        best = A::max(best, X[0]);
                                    }
                                } else {
                                    // each half reads the cells of its own triplet that its mode reads
                                    bool rd[NH], any = false;
#pragma unroll
                                    for (int h = 0; h < NH; ++h) {
                                        const bool in = i <= lah[h] && j <= lbh[h] && k <= lch[h];
                                        const bool far = i == lah[h] || j == lbh[h] || k == lch[h];
                                        const bool corner = i == lah[h] && j == lbh[h] && k == lch[h];
                                        rd[h] = (emode == 2) ? in : (emode == 1) ? (in && far) : corner;
                                        any = any || rd[h];
                                    }
                                    if (any) best = A::max(best, A::min(X[0], A::keep(rd)));
                                }
                            } else {
#pragma unroll
                                for (int s = 0; s < NSTATE; ++s) X[s] = ng;
                            }
                            gcu = gc[r];          // Gc of this row, layer i-1, for the row below
                            gc[r] = X[3];
                            fa[r][0] = X[4]; fa[r][1] = X[5]; fa[r][2] = X[6];
                            fb0 = X[7]; fb1 = X[8]; fb2 = X[9];
                            pga[r + 1] = X[1];
                            pt[r + 1] = X[0];
                            pgb[r + 1] = X[2];
                            pfc[r + 1][0] = X[10]; pfc[r + 1][1] = X[11]; pfc[r + 1][2] = X[12];
                        }
                        up_gc = ugc;
                        // the strip's last row for the next strip (unsplit: where it was read)
                        if (j0 + TJ <= lb) {
                            T* jw = jwr + jo;
                            jw[0] = fb0; jw[32] = fb1; jw[64] = fb2;
                            jw[96] = pga[TJ]; jw[128] = gc[TJ - 1]; jw[160] = pt[TJ];
                        }
                        if (lane == 31 && k0 + 32 <= lc) {
                            T* dst = kf + (long long)i * (TJ + 1) * FW;
#pragma unroll
                            for (int r = 0; r <= TJ; ++r) {
                                dst[r * FW + 0] = pga[r];
                                dst[r * FW + 1] = pt[r];
                                dst[r * FW + 2] = pgb[r];
                                dst[r * FW + 3] = pfc[r][0];
                                dst[r * FW + 4] = pfc[r][1];
                                dst[r * FW + 5] = pfc[r][2];
                            }
                        }
                    } else {
#pragma unroll
                        for (int r = 0; r <= TJ; ++r) {
                            pga[r] = pt[r] = pgb[r] = ng;
                            pfc[r][0] = pfc[r][1] = pfc[r][2] = ng;
                        }
                    }
                    // the left column's layer i becomes layer i-1 for the next step
#pragma unroll
                    for (int r = 0; r <= TJ; ++r) {
                        nt[r] = ct[r];
                        ngb[r] = cgb[r];
                    }
                    __syncwarp();
                }
            }
            if (split) break;
        }
        // warp maximum
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) {
            const T ov = __shfl_xor_sync(TRIMSA_FULL, best, d);
            if (track) {
                const long long oi = __shfl_xor_sync(TRIMSA_FULL, bidx, d);
                if (ov > best || (ov == best && oi < bidx)) {
                    best = ov;
                    bidx = oi;
                }
            } else {
                best = A::max(best, ov);
            }
        }
        if (split) {
            if (lane == 0) {
                part_best[unit] = best;
                if (track) part_idx[unit] = bidx;
            }
            publish(prog + unit, (lc >> 5) + 1, lane);
            if (unit + 1 < unit_off[item + 1]) continue;
            // the last strip: the earlier strips published their parts before their
            // last chunk, which this strip awaited (or there is none)
            if (lane == 0) {
                for (long long u = unit_off[item]; u < unit; ++u) {
                    const int ov = __ldcg(part_best + u);
                    if (track) {
                        const long long oi = __ldcg(part_idx + u);
                        if (ov > best || (ov == best && oi < bidx)) {
                            best = ov;
                            bidx = oi;
                        }
                    } else {
                        best = mx(best, ov);
                    }
                }
            }
        }
        if (lane == 0) {
#pragma unroll
            for (int h = 0; h < NH; ++h) out[NH * item + h] = A::half(best, h);
            if (track) where[item] = bidx;
        }
        __syncwarp();
    }
}

// One thread per triplet: follow the pointer words back from where[t] (the
// end cell; its state is the lowest-numbered best one, pointer field 0) as
// _affine.trace does, writing the moves in reverse order to moves + move_off[t].
// res[4 t] = number of moves (-1 if the path left the cube), res[4 t + 1..3] =
// the start cell.
__constant__ unsigned char MOVE_OF[NSTATE] = {7, 3, 5, 6, 1, 1, 1, 2, 2, 2, 4, 4, 4};
__constant__ unsigned char EXPORT_OF[NSTATE] = {0, 3, 2, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12};

extern "C" __global__ void affine_trace(const unsigned long long* __restrict__ ptr,
                                        const long long* __restrict__ ptr_off,
                                        const int* __restrict__ dims,   // (n, 3) la, lb, lc
                                        const long long* __restrict__ where,
                                        int n, int mode,
                                        unsigned char* __restrict__ moves,
                                        const long long* __restrict__ move_off,
                                        int* __restrict__ res,
                                        const int* __restrict__ state_in)   // (n, 2) or null
{
    // state_in (subproblems, global): the end state to trace from, and the state the
    // path must start in at the origin; without it, the lowest-numbered best end state
    // (pointer field 0) and state 0.
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const int la = dims[3 * t], lb = dims[3 * t + 1], lc = dims[3 * t + 2];
    const unsigned long long* P = ptr + ptr_off[t];
    unsigned char* mv = moves + move_off[t];
    const long long nb = lb + 1, nc = lc + 1;
    long long idx = where[t];
    int k = (int)(idx % nc);
    int j = (int)((idx / nc) % nb);
    int i = (int)(idx / (nc * nb));
    int s = state_in ? state_in[2 * t] : (int)(P[trace_index(i, j, k, la, lb)] & 15ull);
    const int init = state_in ? state_in[2 * t + 1] : 0;
    int count = 0;
    const int cap = la + lb + lc;
    for (;;) {
        if (mode == 0 && i == 0 && j == 0 && k == 0) {
            if (s != init) count = -1;
            break;
        }
        if (mode != 0 && (i == 0 || j == 0 || k == 0)) break;
        if (mode == 2 && s == 0 && ((P[trace_index(i, j, k, la, lb)] >> ZERO_BIT) & 1ull)) break;
        const int m = MOVE_OF[s];
        i -= m & 1;
        j -= (m >> 1) & 1;
        k -= (m >> 2) & 1;
        if (i < 0 || j < 0 || k < 0 || count >= cap) {
            count = -1;
            break;
        }
        s = (int)((P[trace_index(i, j, k, la, lb)] >> (4 * EXPORT_OF[s])) & 15ull);
        mv[count++] = (unsigned char)m;
    }
    res[4 * t] = count;
    res[4 * t + 1] = i;
    res[4 * t + 2] = j;
    res[4 * t + 3] = k;
}

// One thread per triplet of a banded traceback (global): from the far corner in its
// lowest-numbered best state back to the origin, the words laid out as affine_score's
// BAND (lay_off). res[4 t] = number of moves (-1 if the path left the band).
extern "C" __global__ void affine_trace_band(const unsigned long long* __restrict__ ptr,
                                             const long long* __restrict__ ptr_off,
                                             const int* __restrict__ dims,
                                             const int* __restrict__ band,
                                             const long long* __restrict__ band_off,
                                             const long long* __restrict__ lay_off,
                                             int n,
                                             unsigned char* __restrict__ moves,
                                             const long long* __restrict__ move_off,
                                             int* __restrict__ res)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int i = dims[3 * t], j = dims[3 * t + 1], k = dims[3 * t + 2];
    const unsigned long long* P = ptr + ptr_off[t];
    const int* bd = band + 4 * band_off[t];
    const long long* lo = lay_off + band_off[t];
    unsigned char* mv = moves + move_off[t];
    const int cap = i + j + k;
    long long at = lo[i] + (long long)(j - bd[4 * i]) * (bd[4 * i + 3] - bd[4 * i + 2] + 1)
                   + k - bd[4 * i + 2];
    int s = (int)(P[at] & 15ull);
    int count = 0;
    while (i > 0 || j > 0 || k > 0) {
        const int m = MOVE_OF[s];
        i -= m & 1;
        j -= (m >> 1) & 1;
        k -= (m >> 2) & 1;
        if (i < 0 || count >= cap || j < bd[4 * i] || j > bd[4 * i + 1] || k < bd[4 * i + 2]
            || k > bd[4 * i + 3]) {
            count = -1;
            break;
        }
        at = lo[i] + (long long)(j - bd[4 * i]) * (bd[4 * i + 3] - bd[4 * i + 2] + 1)
             + k - bd[4 * i + 2];
        s = (int)((P[at] >> (4 * EXPORT_OF[s])) & 15ull);
        mv[count++] = (unsigned char)m;
    }
    if (count >= 0 && s != 0) count = -1;
    res[4 * t] = count;
}

// The join of a split of the divide and conquer (_affine.best_join), one block per split
// at a time: split p has the forward sweep's last layer F (item 2 p of last / last_off)
// and the reversed sweep's R (item 2 p + 1), both (lb + 1, lc + 1, 13) with dims[2 p..]
// = lb, lc. out[2 p] = the best F[j, k, s] + R[lb - j, lc - k, r] + bonus[s, r] over the
// states s with F above NEG / 2, out[2 p + 1] = its index ((j (lc + 1) + k) 13 + s) 13 +
// r, the lowest on ties (the CPU's first in (j, k, s, r) order); no candidate: the
// lowest 64-bit value and index -1.
#define JOIN_THREADS 256
extern "C" __global__ void __launch_bounds__(JOIN_THREADS)
affine_join(const int* __restrict__ last, const long long* __restrict__ last_off,
            const int* __restrict__ dims, const int* __restrict__ bonus, int n,
            long long* __restrict__ out)
{
    __shared__ int bs[NSTATE * NSTATE];
    __shared__ long long wv[JOIN_THREADS / 32], wi[JOIN_THREADS / 32];
    for (int x = threadIdx.x; x < NSTATE * NSTATE; x += blockDim.x) bs[x] = bonus[x];
    __syncthreads();
    const long long LOWEST = (long long)(-0x7fffffffffffffffll - 1);
    for (int p = blockIdx.x; p < n; p += gridDim.x) {
        const int lb = dims[2 * p], lc = dims[2 * p + 1];
        const int* F = last + last_off[2 * p];
        const int* R = last + last_off[2 * p + 1];
        const long long cells = (long long)(lb + 1) * (lc + 1);
        long long bv = LOWEST, bi = 0x7fffffffffffffffll;
        for (long long c = threadIdx.x; c < cells; c += blockDim.x) {
            const int j = (int)(c / (lc + 1)), k = (int)(c % (lc + 1));
            const int* f = F + c * NSTATE;
            const int* rr = R + ((long long)(lb - j) * (lc + 1) + (lc - k)) * NSTATE;
            int r[NSTATE];
#pragma unroll
            for (int q = 0; q < NSTATE; ++q) r[q] = rr[q];
            for (int s = 0; s < NSTATE; ++s) {
                const int fs = f[s];
                if (fs <= NEG / 2) continue;
                // the best r: the first q of the highest R + bonus (32 bits hold both)
                int rb = r[0] + bs[s * NSTATE], rq = 0;
#pragma unroll
                for (int q = 1; q < NSTATE; ++q) {
                    const int x = r[q] + bs[s * NSTATE + q];
                    if (x > rb) {
                        rb = x;
                        rq = q;
                    }
                }
                // this thread's indices only grow: a strict > keeps the first
                const long long v = (long long)fs + rb;
                if (v > bv) {
                    bv = v;
                    bi = (c * NSTATE + s) * NSTATE + rq;
                }
            }
        }
        // the block's best: the highest value, then the lowest index
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) {
            const long long ov = __shfl_xor_sync(TRIMSA_FULL, bv, d);
            const long long oi = __shfl_xor_sync(TRIMSA_FULL, bi, d);
            if (ov > bv || (ov == bv && oi < bi)) {
                bv = ov;
                bi = oi;
            }
        }
        const int warp = threadIdx.x >> 5;
        if ((threadIdx.x & 31) == 0) {
            wv[warp] = bv;
            wi[warp] = bi;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < JOIN_THREADS / 32; ++w) {
                if (wv[w] > bv || (wv[w] == bv && wi[w] < bi)) {
                    bv = wv[w];
                    bi = wi[w];
                }
            }
            out[2 * p] = bv;
            out[2 * p + 1] = bv == LOWEST ? -1 : bi;
        }
        __syncthreads();
    }
}
