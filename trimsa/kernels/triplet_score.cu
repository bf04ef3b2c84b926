// Score-only exact 3-way alignment of many triplets (global, semiglobal, local).
//
// Layout (see docs/gpu.md). The three sequences of a triplet are renamed
// A (layers, swept one at a time), B (plane rows j) and C (plane columns k).
// A group of P x Q threads of one warp covers a region of (P*TJ) x (Q*TK)
// cells of the (j, k) plane; thread (p, q) keeps a TJ x TK tile of the
// previous layer in registers. The threads run an anti-diagonal wavefront:
// thread (p, q) works p + q steps behind thread (0, 0) on the same layer, and
// receives the bottom row of its upper neighbour and the right column of its
// left neighbour, both of the current layer, through warp shuffles. One
// step = one layer of one tile.
//
// A group streams its work without draining the wavefront: item after item
// (a triplet, or two triplets in the 16-bit path), region after region,
// layer after layer. A plane larger than one region is cut into regions
// processed in row-major order; the faces between regions go through a
// per-group scratch buffer in global memory (double-buffered by region
// parity), written and read by the same warp with __syncwarp in between.
//
// Grid coordinates: row u = j - 1, column v = k - 1. Global and semiglobal
// sweep H' = H - 2*gap*(i + j + k) (see the tile), local sweeps H. The faces
// j = 0 and k = 0 are the halos of the first region row / column: zero in
// local mode, -2*gap*(i + j + k) in semiglobal mode (zero in H; past a
// sequence's end it repeats the last value); in global mode the threads on
// those edges compute them (they are 2-D alignments of A with C and of A with
// B) one layer at a time, beside their tiles, and the layer before the first
// is NEG. Cells past a triplet's end hold a padding residue whose substitution
// score is min(gap, 0) (semiglobal: twice that): with gap <= 0 such cells never
// exceed a real cell (docs/gpu.md), so local mode folds every cell unmasked;
// in semiglobal mode the padding adds 0 to H', so the last row and column of
// the padded plane hold the far faces; global reads its one cell masked.
#include "dpx.cuh"

#define TRIMSA_FULL 0xffffffffu
// entries of a group's ring of fetched items (more than any group's wavefront lag)
#define RING 16
// blocks of 128 threads the compiler must fit on one SM (registers per thread <= 65536 / (128 * this))
#ifndef TRIMSA_MIN_BLOCKS
#define TRIMSA_MIN_BLOCKS 1
#endif

// N words from shared memory at p (16-byte aligned when N % 4 == 0, 8-byte when N % 2 == 0)
template <int N>
__device__ __forceinline__ void load_words(const char* p, unsigned (&w)[N]) {
    if constexpr (N % 4 == 0) {
#pragma unroll
        for (int k = 0; k < N / 4; ++k) {
            const uint4 v = ((const uint4*)p)[k];
            w[4 * k] = v.x; w[4 * k + 1] = v.y; w[4 * k + 2] = v.z; w[4 * k + 3] = v.w;
        }
    } else if constexpr (N % 2 == 0) {
#pragma unroll
        for (int k = 0; k < N / 2; ++k) {
            const uint2 v = ((const uint2*)p)[k];
            w[2 * k] = v.x; w[2 * k + 1] = v.y;
        }
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k) w[k] = ((const unsigned*)p)[k];
    }
}

template <class A, int TJ, int TK, int P, int Q, int MODE, bool STG = false, bool PRF = false>
__global__ void __launch_bounds__(128, TRIMSA_MIN_BLOCKS)
triplet_score(const unsigned char* __restrict__ codes,
              const long long* __restrict__ offsets,
              const int* __restrict__ slots,   // (nitems * NH, 3): A, B, C sequence indices
              const int* __restrict__ dst,     // (nitems * NH): row of res, or -1
              int nitems,
              const int* __restrict__ subtab,  // (2, KP, KP): sub, then its transpose
              int KP, int gap, int neg,
              int* __restrict__ res,
              unsigned int* __restrict__ scratch, long long group_words, int nlmax,
              int kwidth,
              // split mode (colmap != nullptr): group g sweeps one region column
              // colmap[g] = (item, column, kface offset, flag offset) of one triplet
              // whose columns run concurrently; the k-faces between columns go
              // through kface_g, each published layer by layer through flags.
              const int4* __restrict__ colmap, int ncols,
              unsigned int* __restrict__ kface_g, int* __restrict__ flags,
              // stream mode: items past the first ngroups are handed out in
              // order, one at a time, to whichever group is free (zeroed per launch)
              int* __restrict__ next_item)
{
    typedef typename A::T T;
    static_assert(TJ <= 16 && TK <= 8, "the score readout handles tiles up to 16 x 8");
    // Tiles taller than 8 rows (32 bits, with the A-residue profile; TRIMSA_XPR) read x_bc
    // from the profile instead of keeping it in TJ * TK registers (see the tile).
#define TRIMSA_XPR (PRF && A::NH == 1 && TJ > 8)
    constexpr int NH = A::NH;
    constexpr int GS = P * Q;
    constexpr int I0 = (MODE == 0) ? 0 : 1;   // first layer swept
    constexpr int KW2 = P * TJ + 1;      // row length of the k-face buffer
    // staged region setup (below): a slot of residues and B x C scores per thread,
    // padded to 4 words mod 8 so that the 16-byte accesses of 8 lanes hit distinct banks
    constexpr bool STAGE = STG && P * Q > 1;   // the launcher asks for it (short items)
    constexpr int SW = TJ + TK + (TRIMSA_XPR ? 0 : TJ * TK);
    constexpr int SWP = SW + ((SW % 8 == 0) ? 4 : 0);   // SW is a multiple of 4
    static_assert(TJ % 4 == 0 && TK % 4 == 0, "stage slots are read in 16-byte words");
    extern __shared__ uint4 stage_s[];   // 128 * SWP words when STAGE (_gpu_plan.stage_words)
    // A-residue profile (PRF, groups of more than one thread, small alphabets): per
    // group and region parity, x[a][B] of the region's rows and x[a][C] of its
    // columns for every letter a, one row of W entries of ES bytes per letter and
    // half, after the stage slots (_gpu_plan.profile_bytes). A thread reads its 8
    // rows and 8 columns at the layer's letter with a few vector loads instead of
    // 16 table lookups per half.
    constexpr bool PROF = PRF && P * Q > 1;
    constexpr int ES = (A::NH == 2) ? 2 : 4;
    constexpr int W = P * TJ + Q * TK;
    // bytes per letter; tall tiles read the rows of different letters in one access (x_bc,
    // see the tile): 16 bytes more per letter put the letters of 8 lanes on distinct banks
    const int LW = W * ES + (TRIMSA_XPR ? 16 : 0);
    const int PBUF = A::NH * KP * LW;   // bytes per group and parity
    char* prof_s = (char*)stage_s + (STAGE ? 16 * 128 * (SWP / 4) : 0);

    static_assert(P + Q - 2 < RING, "a group's last thread lags its first by P + Q - 2 steps");
    // Both tables hold a shifted score x = sub + XOFF, so that the moves of
    // two residues and a gap read their whole column score from the table:
    //   global and semiglobal: -2*gap, the column scores of the shifted
    //            H' = H - 2*gap*(i + j + k), in which a residue against two gaps scores 0;
    //   local:   0, the substitution score itself (the tile holds 2*gap back
    //            until a cell's last operation).
    // Rows have 64 entries, so the byte offset of entry [y][x] is
    // y * 256 + 4 * x: one byte permute builds it from a residue byte 4 * x
    // (bres / cres) and y in byte 1 of another word (see the lookups).
    __shared__ int subN_s[32 * 64];   // subN_s[b * 64 + c] = sub[b][c] + XOFF
    __shared__ int subT_s[32 * 64];   // subT_s[a * 64 + x] = sub[x][a] + XOFF
    // per group: the items its first thread fetched, read by the others when they get there
    __shared__ int ring_s[(128 / GS) * RING];
    constexpr bool SHIFT = MODE != 2;   // the sweep is of H' (see the tile)
    // The IMAD update (global and semiglobal, staged launches; 32 bits, and 16 bits where
    // every addend is >= 0, A::IMADD): the previous layer's terms
    //   M = max3(max(dg_p + x_ac + x_bc, up_p) + x_ab, lf_p + x_ac, Hp)
    // with the additions of x_ac and x_ab as IMADs (A::addf, on the FMA pipe), and
    // dg_p + x_ac of one cell reused as lf_p + x_ac of the cell above: 2 DPX operations
    // and 2 IMADs per cell where the plain update issues 4 DPX operations (which share
    // the ALU pipe with PRMT; eval/experiments/kernels/results/pipes-H100-2026-11-23.md).
    // Staged launches only: there it is 4-6% faster in 32 bits at L = 32..64, and unstaged
    // launches are 1-8% slower with it in both widths (same-run A/B,
    // eval/experiments/kernels/results/kernels-H100-2026-11-23-s9-ab.md).
    // (Its condition, SHIFT && A::IMADD && STAGE, is written out where it is used: a local
    // constexpr for it changes the SASS of every other instantiation.)
    // The tile is updated in place (INPLACE), except in the 16-bit global and semiglobal
    // kernels with the plain update, which keep a second tile: in place is 7-15% faster for
    // local at L >= 128 and 1-3% for 32-bit global, but 2-3% slower for 16-bit global at
    // L <= 64 (eval/experiments/kernels/results/kernels-H100-2026-11-22-s7-ab.md).
    // The 16-bit IMAD update runs in place: for semiglobal 3-5% faster at L = 32..64 than
    // the plain update with the second tile; for global 4% slower at L = 32, and no faster
    // with the second tile, so the launcher takes S16x2N for semiglobal only (the same A/B
    // as the IMAD update).
    constexpr bool INPLACE = !(SHIFT && A::NH == 2) || (SHIFT && A::IMADD && STAGE);
    const int XOFF = SHIFT ? -2 * gap : 0;
    for (int x = threadIdx.x; x < KP * KP; x += blockDim.x) {
        subN_s[(x / KP) * 64 + x % KP] = subtab[x] + XOFF;
        subT_s[(x / KP) * 64 + x % KP] = subtab[KP * KP + x] + XOFF;
    }
    __syncthreads();
    const char* subN = (const char*)subN_s;
    const char* subT = (const char*)subT_s;
    const int PAD = KP - 1;

    const int lane = threadIdx.x & 31;
    const int gl = lane % GS;
    const int p = gl / Q, q = gl % Q;
    const int warp_id = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int group = warp_id * (32 / GS) + lane / GS;
    const int ngroups = ((gridDim.x * blockDim.x) >> 5) * (32 / GS);
    volatile int* ring = ring_s + (threadIdx.x / GS) * RING;
    int fetched = 0;   // items this thread has moved on from
    // a group's face buffers (offsets inside them are 32-bit: the launcher keeps
    // group_words below 2^31)
    unsigned int* jface = scratch + (long long)group * group_words;
    unsigned int* kface = jface + 2LL * nlmax * kwidth;

    const T g2 = A::splat(2 * gap);
    const T mg2 = A::splat(-2 * gap);
    const T init = A::splat(MODE == 0 ? neg : 0);
    const T zero = A::splat(0);

    // ---- stream state -------------------------------------------------
    const bool split = colmap != nullptr;
    int item = group, Kfix = 0, foff = 0;
    long long koff = 0;
    if (split) {
        item = nitems;
        if (group < ncols) {
            const int4 cm = colmap[group];
            item = cm.x; Kfix = cm.y; koff = cm.z; foff = cm.w;
        }
    }
    int J = 0, Kr = Kfix, i = I0;
    // first column of this group's j-face rows: a split job keeps only its own
    // region column (kwidth = Q * TK + 1), a streaming group the whole plane
    const int jbase = Kfix * Q * TK;
    int ready = 0;   // split mode: layers of the current left k-face known to be published
    int rcount = 0;  // regions this thread has finished (the parity of its profile buffer)
    int la[NH], lb[NH], lc[NH], dsth[NH];
    int offA[NH], offB[NH], offC[NH];   // the launcher keeps codes below 2^31
    int maxla = 0, nJ = 1, nK = 1;

    auto load_item = [&]() {
        maxla = 0;
        int mb = 0, mc = 0;
#pragma unroll
        for (int h = 0; h < NH; ++h) {
            la[h] = 0; lb[h] = 0; lc[h] = 0; dsth[h] = -1;
            offA[h] = offB[h] = offC[h] = 0;
            if (item < nitems) {
                const int* s = slots + 3LL * (item * NH + h);
                int sa = s[0], sb = s[1], sc = s[2];
                dsth[h] = dst[item * NH + h];
                if (sa >= 0) {
                    offA[h] = (int)offsets[sa]; la[h] = (int)(offsets[sa + 1] - offA[h]);
                    offB[h] = (int)offsets[sb]; lb[h] = (int)(offsets[sb + 1] - offB[h]);
                    offC[h] = (int)offsets[sc]; lc[h] = (int)(offsets[sc + 1] - offC[h]);
                }
            }
            maxla = max(maxla, la[h]); mb = max(mb, lb[h]); mc = max(mc, lc[h]);
        }
        nJ = max(1, (mb + P * TJ - 1) / (P * TJ));
        nK = max(1, (mc + Q * TK - 1) / (Q * TK));
    };
    load_item();

    // the residue of A at layer ii, or the padding code, read without a branch (the
    // offset is clamped at 0, and the tail after the codes covers a 16-bit pair's
    // shorter triplet, which reads up to the longer one's length past its end): 3-13%
    // faster than a guarded load for semiglobal and local at L >= 128
    // (eval/experiments/kernels/results/kernels-H100-2026-11-22-acode.md), and 7-8% for global
    // at L = 128..1024 (eval/experiments/kernels/results/kernels-H100-2026-11-22-s6-variants.md).
    // The staged kernels (short items) keep the guarded load: branch-free, 16-bit semiglobal
    // spilled 8 bytes there and ran up to 4% slower at L = 16..64
    // (eval/experiments/kernels/results/kernels-H100-2026-11-22-end.md against ...-final.md).
    auto acode = [&](int h, int ii) -> int {
        if (STAGE) return (ii >= 1 && ii <= la[h]) ? (int)__ldg(codes + offA[h] + ii - 1) : PAD;
        const int v = __ldg(codes + max(offA[h] + ii - 1, 0));
        return (ii >= 1 && ii <= la[h]) ? v : PAD;
    };
    int anext[NH];
#pragma unroll
    for (int h = 0; h < NH; ++h) anext[h] = acode(h, i);

    // ---- per-region tile constants -----------------------------------
    // 4 x the residue of half h in byte h; bres also the residue itself in byte 2 + h
    unsigned bres[TJ], cres[TK];
    // tall tiles in local mode: byte 0 of each cres (4 x the column's letter), four to a
    // word, the only part of the residues they read after the setup. Unpacked, the local
    // kernel spills the 8 words and reloads them every step. Packing makes local 1-6% faster
    // at L = 32..1024 but global 1-3% slower at L = 32..256
    // (eval/experiments/kernels/results/kernels-H100-2026-11-23-s13-relu.md), so local only.
    constexpr bool CPK = TRIMSA_XPR && MODE == 2;
    unsigned cpk[TK / 4];
    T sbc2g[TJ][TK];               // x[b][c]: sub + XOFF of the tile's B and C residues
    int rr[NH], cc[NH];           // global: row / column of the tile's cell read, or -2

    // The tile's residues: one base pointer per sequence (oB / oC: the tile's
    // first row / column), read unconditionally (the launcher leaves a tail
    // of zeros after the codes that covers any padded plane) and replaced by
    // the padding code past the sequence's end (nb / nc residues left).
    auto tile_residues = [&](const int (&oB)[NH], const int (&oC)[NH], const int (&nb)[NH],
                             const int (&nc)[NH], unsigned (&rb)[TJ], unsigned (&rc)[TK]) {
#pragma unroll
        for (int r = 0; r < TJ; ++r) rb[r] = 0;
#pragma unroll
        for (int c = 0; c < TK; ++c) rc[c] = 0;
#pragma unroll
        for (int h = 0; h < NH; ++h) {
            const unsigned char* pb = codes + oB[h];
            const unsigned char* pc = codes + oC[h];
#pragma unroll
            for (int r = 0; r < TJ; ++r) {
                unsigned b = __ldg(pb + r);
                b = (r < nb[h]) ? b : (unsigned)PAD;
                rb[r] |= (4 * b) << (8 * h) | b << (8 * h + 16);
            }
#pragma unroll
            for (int c = 0; c < TK; ++c) {
                unsigned x = __ldg(pc + c);
                x = (c < nc[h]) ? x : (unsigned)PAD;
                rc[c] |= (4 * x) << (8 * h);
            }
        }
    };
    // x_bc of one cell: byte offset b * 256 + 4 * c, 4c from the column's byte h,
    // b from the row's byte 2 + h, zeros from the column's bytes 2 and 3
    auto bc_score = [&](unsigned br, unsigned cr) -> T {
        int v[NH];
#pragma unroll
        for (int h = 0; h < NH; ++h) v[h] = *(const int*)(subN + __byte_perm(cr, br, 0x3260 + 0x11 * h));
        return A::pack(v);
    };
    // Staging (groups of more than one thread): the lanes of a warp reach a
    // region's first layer at P + Q - 1 different steps, and a divergent setup
    // would run that many times. Instead, when the group's first thread starts
    // a region, every thread of the group computes its own tile's setup for
    // that region at once and leaves it in its slot of shared memory, where
    // it reads it back p + q steps later. Only for items of at least P + Q - 1
    // layers, so that no slot is overwritten before it is read.
    auto staged = [&]() { return maxla - I0 + 1 >= P + Q - 1; };
    // semiglobal: the two 16-bit halves of 2*gap*v(h) (or the one int)
    auto g2pack = [&](auto v) -> T {
        int x[NH];
#pragma unroll
        for (int h = 0; h < NH; ++h) x[h] = 2 * gap * v(h);
        return A::pack(x);
    };
    T best = A::splat(0);

    // ---- layer state ---------------------------------------------------
    T Hp[TJ][TK], Tp[TK + 1], Lp[TJ];
    // the layer before a region's first: NEG (global), the zero face i = 0
    // (local), or that face shifted (semiglobal): H'(0, j, k) = -2*gap*(j' + k')
    // with j' = min(j, lb) and k' = min(k, lc) per half, so that the padding
    // adds nothing to H' (see the far-face folds). The tile's cell (r, c) is
    // j = u0 + r + 1, k = k0 + c + 1; its halo row / column are j = u0 / k = k0.
    auto reset_layer = [&](int u0, int k0) {
        if (MODE == 1) {
            T rowv[TJ + 1], colv[TK + 1];   // -2*gap*j' of j = u0 + n, -2*gap*k' of k = k0 + n
            int v0[NH], v1[NH], cj[NH], ck[NH];
#pragma unroll
            for (int h = 0; h < NH; ++h) {
                v0[h] = -2 * gap * min(u0, lb[h]); cj[h] = -2 * gap * lb[h];
                v1[h] = -2 * gap * min(k0, lc[h]); ck[h] = -2 * gap * lc[h];
            }
            const T capj = A::pack(cj), capk = A::pack(ck);
            rowv[0] = A::pack(v0);
            colv[0] = A::pack(v1);
#pragma unroll
            for (int n = 1; n <= TJ; ++n) rowv[n] = A::addmin(rowv[n - 1], mg2, capj);
#pragma unroll
            for (int n = 1; n <= TK; ++n) colv[n] = A::addmin(colv[n - 1], mg2, capk);
#pragma unroll
            for (int r = 0; r < TJ; ++r) {
                Lp[r] = A::add(rowv[r + 1], colv[0]);
#pragma unroll
                for (int c = 0; c < TK; ++c) Hp[r][c] = A::add(rowv[r + 1], colv[c + 1]);
            }
#pragma unroll
            for (int c = 0; c <= TK; ++c) Tp[c] = A::add(rowv[0], colv[c]);
            return;
        }
#pragma unroll
        for (int r = 0; r < TJ; ++r) {
            Lp[r] = init;
#pragma unroll
            for (int c = 0; c < TK; ++c) Hp[r][c] = init;
        }
#pragma unroll
        for (int c = 0; c <= TK; ++c) Tp[c] = init;
    };
    reset_layer(0, 0);

    const int delay = p + q;
    int step = 0;
    while (__any_sync(TRIMSA_FULL, item < nitems)) {
        // -- receive the halos of the current layer from the neighbours --
        T Tc[TK + 1], Lc[TJ];
        {
            T v = __shfl_up_sync(TRIMSA_FULL, Lp[TJ - 1], Q, GS);
            Tc[0] = v;
#pragma unroll
            for (int c = 0; c < TK; ++c) Tc[c + 1] = __shfl_up_sync(TRIMSA_FULL, Hp[TJ - 1][c], Q, GS);
#pragma unroll
            for (int r = 0; r < TJ; ++r) Lc[r] = __shfl_up_sync(TRIMSA_FULL, Hp[r][TK - 1], 1, GS);
        }
        // global: the left neighbour's last cell of the edge row j = 0
        T corner_left = init;
        if (MODE == 0) corner_left = __shfl_up_sync(TRIMSA_FULL, Tp[TK], 1, GS);
        const bool active = step >= delay && item < nitems;
        ++step;
        // the group's first thread starts a region: bit 0; its item is staged: bit 1
        const int trig = (STAGE || PROF)
            ? __shfl_sync(TRIMSA_FULL, (active && i == I0 ? 1 : 0) | (staged() ? 2 : 0), 0, GS) : 0;
        if (trig & 1) {
            // only this group's lanes are here (the groups of a warp start regions apart)
            const unsigned gmask = (GS == 32) ? TRIMSA_FULL : ((1u << GS) - 1) << (lane / GS * GS);
            const int sJ = __shfl_sync(gmask, J, 0, GS);
            const int sK = __shfl_sync(gmask, Kr, 0, GS);
            int sB[NH], sC[NH], sb[NH], sc[NH];   // the first thread's item
#pragma unroll
            for (int h = 0; h < NH; ++h) {
                sB[h] = __shfl_sync(gmask, offB[h], 0, GS);
                sC[h] = __shfl_sync(gmask, offC[h], 0, GS);
                sb[h] = __shfl_sync(gmask, lb[h], 0, GS);
                sc[h] = __shfl_sync(gmask, lc[h], 0, GS);
            }
            if (STAGE && (trig & 2)) {
                const int u0 = sJ * P * TJ + p * TJ;
                const int k0 = sK * Q * TK + q * TK;
                int oB[NH], oC[NH], nb[NH], nc[NH];
#pragma unroll
                for (int h = 0; h < NH; ++h) {
                    oB[h] = sB[h] + u0; oC[h] = sC[h] + k0;
                    nb[h] = sb[h] - u0; nc[h] = sc[h] - k0;
                }
                unsigned rb[TJ], rc[TK];
                tile_residues(oB, oC, nb, nc, rb, rc);
                uint4* st = stage_s + threadIdx.x * (SWP / 4);
#pragma unroll
                for (int x = 0; x < TJ / 4; ++x) st[x] = make_uint4(rb[4 * x], rb[4 * x + 1], rb[4 * x + 2], rb[4 * x + 3]);
#pragma unroll
                for (int x = 0; x < TK / 4; ++x)
                    st[TJ / 4 + x] = make_uint4(rc[4 * x], rc[4 * x + 1], rc[4 * x + 2], rc[4 * x + 3]);
#pragma unroll
                for (int x = 0; x < (TRIMSA_XPR ? 0 : TJ * TK / 4); ++x) {
                    const int r = (4 * x) / TK, c = (4 * x) % TK;
                    st[(TJ + TK) / 4 + x] = make_uint4(bc_score(rb[r], rc[c]), bc_score(rb[r], rc[c + 1]),
                                                       bc_score(rb[r], rc[c + 2]), bc_score(rb[r], rc[c + 3]));
                }
            }
            if (PROF) {
                // the region's profile, into the buffer of its parity: entry (half h, row or
                // column w) for every letter a. The lagging threads still read the other
                // buffer; the launcher only asks for PRF when every item sweeps at least
                // P + Q - 2 layers, so that no buffer is rewritten while a thread reads it.
                char* pg = prof_s + (threadIdx.x / GS) * 2 * PBUF
                           + __shfl_sync(gmask, rcount & 1, 0, GS) * PBUF;
                const int u00 = sJ * P * TJ, k00 = sK * Q * TK;
                for (int e = gl; e < NH * W; e += GS) {
                    const int h = e / W, w = e % W;
                    const bool row = w < P * TJ;
                    int off = 0, len = 0;
#pragma unroll
                    for (int x = 0; x < NH; ++x)
                        if (x == h) { off = row ? sB[x] : sC[x]; len = row ? sb[x] : sc[x]; }
                    const int at = row ? u00 + w : k00 + w - P * TJ;
                    const int res = at < len ? (int)__ldg(codes + off + at) : PAD;
                    const char* src = subT + 4 * res;   // subT_s[a * 64 + res] = x(a, res)
                    char* dst = pg + h * KP * LW + w * ES;
                    for (int a = 0; a < KP; ++a) {
                        const int v = *(const int*)(src + 256 * a);
                        if (ES == 2) *(short*)(dst + a * LW) = (short)v;
                        else *(int*)(dst + a * LW) = v;
                    }
                }
                __syncwarp(gmask);
            }
        }
        if (active) {
            const int u0 = J * P * TJ + p * TJ;
            const int k0 = Kr * Q * TK + q * TK;
            const int li = i - I0;
            if (i == I0) {
                // new region: residues of the tile, B x C scores (staged when the
                // group's first thread started the region, or looked up now), masks
                if (STAGE && staged()) {
                    const uint4* st = stage_s + threadIdx.x * (SWP / 4);
#pragma unroll
                    for (int x = 0; x < TJ / 4; ++x) {
                        const uint4 w = st[x];
                        bres[4 * x] = w.x; bres[4 * x + 1] = w.y; bres[4 * x + 2] = w.z; bres[4 * x + 3] = w.w;
                    }
#pragma unroll
                    for (int x = 0; x < TK / 4; ++x) {
                        const uint4 w = st[TJ / 4 + x];
                        cres[4 * x] = w.x; cres[4 * x + 1] = w.y; cres[4 * x + 2] = w.z; cres[4 * x + 3] = w.w;
                    }
#pragma unroll
                    for (int x = 0; x < (TRIMSA_XPR ? 0 : TJ * TK / 4); ++x) {
                        const uint4 w = st[(TJ + TK) / 4 + x];
                        const int r = (4 * x) / TK, c = (4 * x) % TK;
                        sbc2g[r][c] = (T)w.x; sbc2g[r][c + 1] = (T)w.y;
                        sbc2g[r][c + 2] = (T)w.z; sbc2g[r][c + 3] = (T)w.w;
                    }
                } else {
                    int oB[NH], oC[NH], nb[NH], nc[NH];
#pragma unroll
                    for (int h = 0; h < NH; ++h) {
                        oB[h] = offB[h] + u0; oC[h] = offC[h] + k0;
                        nb[h] = lb[h] - u0; nc[h] = lc[h] - k0;
                    }
                    tile_residues(oB, oC, nb, nc, bres, cres);
#pragma unroll
                    for (int r = 0; r < TJ; ++r)
#pragma unroll
                        for (int c = 0; c < TK; ++c) sbc2g[r][c] = bc_score(bres[r], cres[c]);
                }
#pragma unroll
                for (int h = 0; h < NH && MODE == 0; ++h) {
                    // the cell read: row / column -1 is the edge face (global, empty B or C)
                    int rl = lb[h] - 1 - u0, cl = lc[h] - 1 - k0;
                    bool row_ok = (rl >= 0 && rl < TJ) || (rl == -1 && p == 0 && J == 0);
                    bool col_ok = (cl >= 0 && cl < TK) || (cl == -1 && q == 0 && Kr == 0);
                    rr[h] = (row_ok && col_ok) ? rl : -2;
                    cc[h] = cl;
                }
                if constexpr (CPK) {
#pragma unroll
                    for (int x = 0; x < TK / 4; ++x)
                        cpk[x] = __byte_perm(__byte_perm(cres[4 * x], cres[4 * x + 1], 0x0040),
                                             __byte_perm(cres[4 * x + 2], cres[4 * x + 3], 0x0040), 0x5410);
                }
                best = A::splat(0);
                ready = 0;
                reset_layer(u0, k0);
            }
            // -- halos at the region's edges: face buffers, or the faces j = 0 / k = 0 --
            // The corner Tc[0] (j = u0, k = k0) of a thread on the region's top edge is entry
            // 0 of the face row from the region above; the first region row has no such row,
            // nor has a split column job's (its j-face rows hold its own column only), and
            // there it comes from the k-face of the region to the left, which global mode needs
            // (elsewhere the face j = 0 gives it). The unstaged 16-bit kernels load it once: a
            // second load into the same register, after the face row's, waits for the first
            // (write-after-write), which held 12.9% of the warp samples at L = 512
            // (eval/experiments/kernels/results/faces-H100-2026-11-23-s11.md); loading it once is
            // 3-17% faster at L = 128..1024. The other kernels (KC2) load the face row whole
            // and then the corner again from the k-face: loading it once, the staged ones ran
            // 3-7% slower at L = 32..64 (more spills) and 32-bit semiglobal 2-4% slower at
            // L = 128..512 (its face row was copied to other registers right after the loads);
            // eval/experiments/kernels/results/faces-H100-2026-11-23-s12.md.
            constexpr bool KC2 = STAGE || A::NH == 1;   // the corner loaded twice (see above)
            // this layer's k-face column (q == 0, Kr > 0); split mode waits for it here
            auto kface_column = [&]() -> const unsigned int* {
                if (split) {
                    if (ready < li + 1) {
                        // wait until the column to the left has published this layer
                        const volatile int* fl = flags + foff + ((Kr - 1) * nJ + J) * P + p;
                        while ((ready = *fl) < li + 1) { }
                        __threadfence();
                    }
                    return kface_g + koff + ((long long)((Kr - 1) * nJ + J) * (maxla - I0 + 1) + li) * KW2 + p * TJ;
                }
                return kface + (unsigned)(((Kr & 1) * nlmax + li) * KW2 + p * TJ);
            };
            const unsigned int* fk = (!KC2 && q == 0 && Kr > 0) ? kface_column() : nullptr;
            if (p == 0) {
                if (J == 0) {
                    if (MODE == 1) {
                        // the zero face j = 0, shifted: H'(i, 0, k) = -2*gap*(i + min(k, lc))
                        const T cap = g2pack([&](int h) { return -(i + lc[h]); });
                        Tc[0] = g2pack([&](int h) { return -(i + min(k0, lc[h])); });
#pragma unroll
                        for (int c = 0; c < TK; ++c) Tc[c + 1] = A::addmin(Tc[c], mg2, cap);
                    } else {
                        // zero faces; in global mode the row is computed below from its corner,
                        // H'(i, 0, 0) = 2*gap*i - 2*gap*i = 0 or the left neighbour's last cell
#pragma unroll
                        for (int c = 0; c <= TK; ++c) Tc[c] = A::splat(0);
                        if (MODE == 0)
                            Tc[0] = (q == 0 && Kr == 0) ? A::splat(0) : (KC2 || q > 0) ? corner_left : (T)__ldcg(fk);
                    }
                } else {
                    const unsigned int* f = jface + (unsigned)(((J & 1) * nlmax + li) * kwidth + (k0 - jbase));
                    if (!KC2) Tc[0] = (T)__ldcg((split && q == 0 && Kr > 0) ? fk : f);
#pragma unroll
                    for (int c = KC2 ? 0 : 1; c <= TK; ++c) Tc[c] = (T)__ldcg(f + c);
                }
            }
            if (q == 0) {
                if (Kr == 0) {
                    if (MODE == 1) {
                        // the zero face k = 0, shifted: H'(i, j, 0) = -2*gap*(i + min(j, lb))
                        const T cap = g2pack([&](int h) { return -(i + lb[h]); });
                        Lc[0] = g2pack([&](int h) { return -(i + min(u0 + 1, lb[h])); });
#pragma unroll
                        for (int r = 1; r < TJ; ++r) Lc[r] = A::addmin(Lc[r - 1], mg2, cap);
                    } else {
#pragma unroll
                        for (int r = 0; r < TJ; ++r) Lc[r] = A::splat(0);
                    }
                } else {
                    const unsigned int* f = KC2 ? kface_column() : fk;
#pragma unroll
                    for (int r = 0; r < TJ; ++r) Lc[r] = (T)__ldcg(f + 1 + r);
                    if (KC2 && p == 0) Tc[0] = (T)__ldcg(f);
                }
            }
            // -- scores of this layer's residue of A against the tile --
            // sab + XOFF; sac + XOFF; local also sac - 2g (sacm)
            T sab2g[TJ], sacm[TK], sac2g[TK];
            if (PROF) {
                // the profile's rows and columns at this layer's letters: vector loads of
                // 16-bit entries, two halves combined by byte permutes (or 32-bit entries)
                const char* pg = prof_s + (threadIdx.x / GS) * 2 * PBUF + (rcount & 1) * PBUF;
                constexpr int NR = TJ * ES / 4, NC = TK * ES / 4;   // words
                unsigned wr[NH][NR], wc[NH][NC];
#pragma unroll
                for (int h = 0; h < NH; ++h) {
                    const char* ph = pg + h * KP * LW + anext[h] * LW;
                    load_words<NR>(ph + p * TJ * ES, wr[h]);
                    load_words<NC>(ph + (P * TJ + q * TK) * ES, wc[h]);
                }
#pragma unroll
                for (int r = 0; r < TJ; ++r)
                    sab2g[r] = (NH == 2) ? (T)__byte_perm(wr[0][r / 2], wr[NH - 1][r / 2], (r & 1) ? 0x7632 : 0x5410)
                                         : (T)wr[0][r];
#pragma unroll
                for (int c = 0; c < TK; ++c) {
                    sac2g[c] = (NH == 2) ? (T)__byte_perm(wc[0][c / 2], wc[NH - 1][c / 2], (c & 1) ? 0x7632 : 0x5410)
                                         : (T)wc[0][c];
                    if (!SHIFT) sacm[c] = A::add(sac2g[c], mg2);
                }
            } else {

                // byte offset a * 256 + 4 * x in one permute: byte 0 from the
                // residue word (byte h), bytes 1-3 from a << 8
                unsigned ac[NH];
#pragma unroll
                for (int h = 0; h < NH; ++h) ac[h] = (unsigned)anext[h] << 8;
#pragma unroll
                for (int r = 0; r < TJ; ++r) {
                    int v[NH];
#pragma unroll
                    for (int h = 0; h < NH; ++h)
                        v[h] = *(const int*)(subT + __byte_perm(bres[r], ac[h], 0x7650 + h));
                    sab2g[r] = A::pack(v);
                }
#pragma unroll
                for (int c = 0; c < TK; ++c) {
                    int v[NH];
#pragma unroll
                    for (int h = 0; h < NH; ++h)
                        v[h] = *(const int*)(subT + __byte_perm(cres[c], ac[h], 0x7650 + h));
                    sac2g[c] = A::pack(v);
                    if (!SHIFT) sacm[c] = A::add(sac2g[c], mg2);
                }
            }
            if (MODE == 0) {
                // faces of global mode: H'(i,0,k) and H'(i,j,0), 2-D recurrences
                // (a residue against two gaps scores 0 in H'). Only the threads on the plane's
                // edges need them. As branches they cut the tile into three basic blocks; the
                // staged 16-bit kernels (FMASK) compute both in every thread instead and keep
                // them by a predicate (one instruction per entry), which leaves the tile one
                // block: +5.7% at L = 32 and +2.0% at L = 64 (same run). Done that way, the
                // unstaged 16-bit kernels ran 10-14% slower at L = 128..256 (the faces are
                // needed in the first region row / column only; faster only on one-region planes
                // of long items), the 32-bit ones 2.5-8% slower (more local memory)
                // (eval/experiments/kernels/results/faces-H100-2026-11-24-s15.md).
                constexpr bool FMASK = A::NH == 2 && STAGE;
                const bool row = p == 0 && J == 0, col = q == 0 && Kr == 0;
                if constexpr (FMASK) {
                    T x = Tc[0];
#pragma unroll
                    for (int c = 0; c < TK; ++c) {
                        x = A::addmax(Tp[c], sac2g[c], A::max(Tp[c + 1], x));
                        Tc[c + 1] = row ? x : Tc[c + 1];
                    }
                    T upc = Tc[0], upp = Tp[0];
#pragma unroll
                    for (int r = 0; r < TJ; ++r) {
                        upc = A::addmax(upp, sab2g[r], A::max(Lp[r], upc));
                        upp = Lp[r];
                        Lc[r] = col ? upc : Lc[r];
                    }
                } else {
                    if (row) {
#pragma unroll
                        for (int c = 0; c < TK; ++c)
                            Tc[c + 1] = A::addmax(Tp[c], sac2g[c], A::max(Tp[c + 1], Tc[c]));
                    }
                    if (col) {
                        T upc = Tc[0], upp = Tp[0];
#pragma unroll
                        for (int r = 0; r < TJ; ++r) {
                            Lc[r] = A::addmax(upp, sab2g[r], A::max(Lp[r], upc));
                            upc = Lc[r];
                            upp = Lp[r];
                        }
                    }
                }
            }
            // -- the tile --
            // In place (INPLACE): first the terms of the previous layer, from the
            // bottom-right corner (a cell's neighbours below and right read it before
            // it is overwritten), then this layer's wavefront from the top-left corner;
            // no layer is copied. Else into a second tile Hn, copied back below. Global
            // and semiglobal sweep H' = H - 2g(i+j+k), where the single-residue moves
            // add 0; local sweeps H, with 2g held back until a cell's last operation:
            //   M  = max(max(dg_p + x_bc + x_ac [- 2g], up_p) + x_ab, lf_p + x_ac, Hp)
            //   H' = max3(max(dg_c + x_bc, M), up_c, lf_c)       (local: max(that + 2g, 0))
            // 6 operations (local 7): x_ab factors out of the two moves that take the
            // residues of A and B, max(dg + x_bc + x_ac, up) + x_ab.
            T Hn[TJ][TK];
            // the neighbours up, up-left and left of cell (r, c) in tile H, whose halos
            // are the row `top` (from column -1) and the column `left`
            auto around = [&](const T (&H)[TJ][TK], const T (&top)[TK + 1], const T (&left)[TJ],
                              int r, int c, T& up, T& dg, T& lf) {
                up = r ? H[r - 1][c] : top[c + 1];
                dg = r ? (c ? H[r - 1][c - 1] : left[r - 1]) : top[c];
                lf = c ? H[r][c - 1] : left[r];
            };
            if constexpr (TRIMSA_XPR) {
                // Tall tiles (TJ > 8, 32 bits): x_bc of column c is the profile's row part at the
                // letter of C there (the profile holds x(a, B[j]) = sub[B[j]][a] + XOFF for every
                // letter a), read column by column with vector loads, in both phases, so the
                // tile keeps no x_bc in registers. The same in-place update as below, with the
                // cells taken column by column (a cell's old value is still read by the cells
                // below and right of it: columns from the right, each from the bottom; then the
                // wavefront from the left, each column from the top).
                const char* px = prof_s + (threadIdx.x / GS) * 2 * PBUF + (rcount & 1) * PBUF + p * TJ * ES;
                // volatile loads: plain ones, the compiler keeps from the first phase to the
                // second (128 more live values, spilled)
                const unsigned pxs = (unsigned)__cvta_generic_to_shared(px);
                auto xcol = [&](int c, T (&xc)[TJ]) {
                    const unsigned a = pxs + (CPK ? __byte_perm(cpk[c / 4], 0, 0x4440 + c % 4) : cres[c] & 0xffu) * (LW / 4);   // 4 x the letter
#pragma unroll
                    for (int x = 0; x < TJ / 4; ++x) {
                        unsigned w0, w1, w2, w3;
                        asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                                     : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3) : "r"(a + 16 * x));
                        xc[4 * x] = (T)w0; xc[4 * x + 1] = (T)w1; xc[4 * x + 2] = (T)w2; xc[4 * x + 3] = (T)w3;
                    }
                };
#pragma unroll
                for (int cc = 0; cc < TK; ++cc) {
                    const int c = TK - 1 - cc;
                    T xc[TJ];
                    xcol(c, xc);
                    T lcar = zero;   // the IMAD update: dg_p + x_ac of the cell below, = lf_p + x_ac here
#pragma unroll
                    for (int rr = 0; rr < TJ; ++rr) {
                        const int r = TJ - 1 - rr;
                        T up_p, dg_p, lf_p;
                        around(Hp, Tp, Lp, r, c, up_p, dg_p, lf_p);
                        if constexpr (SHIFT && A::IMADD && STAGE) {
                            const int one = nitems > 0;
                            const T l = (r == TJ - 1) ? A::addf(lf_p, sac2g[c], one) : lcar;
                            lcar = A::addf(dg_p, sac2g[c], one);
                            const T m = A::addmax(lcar, xc[r], up_p);
                            Hp[r][c] = A::max3(A::addf(m, sab2g[r], one), l, Hp[r][c]);
                        } else {
                            const T d = A::add(dg_p, xc[r]);
                            const T l = A::addmax(lf_p, sac2g[c], Hp[r][c]);
                            const T m = A::addmax(d, SHIFT ? sac2g[c] : sacm[c], up_p);
                            Hp[r][c] = A::addmax(m, sab2g[r], l);
                        }
                    }
                }
#pragma unroll
                for (int c = 0; c < TK; ++c) {
                    T xc[TJ];
                    xcol(c, xc);
#pragma unroll
                    for (int r = 0; r < TJ; ++r) {
                        T up_c, dg_c, lf_c;
                        around(Hp, Tc, Lc, r, c, up_c, dg_c, lf_c);
                        const T y = A::max3(A::addmax(dg_c, xc[r], Hp[r][c]), up_c, lf_c);
                        Hp[r][c] = SHIFT ? y : A::addrelu(y, g2);
                    }
                }
            } else if constexpr (INPLACE) {
                T lrow[TK];   // the IMAD update: dg_p + x_ac of the row below, = lf_p + x_ac of this row
#pragma unroll
                for (int rr = 0; rr < TJ; ++rr) {
#pragma unroll
                    for (int cc = 0; cc < TK; ++cc) {
                        // (loops counting down put the tile in local memory)
                        const int r = TJ - 1 - rr, c = TK - 1 - cc;
                        T up_p, dg_p, lf_p;
                        around(Hp, Tp, Lp, r, c, up_p, dg_p, lf_p);
                        if constexpr (SHIFT && A::IMADD && STAGE) {
                            // the IMAD update (see INPLACE); 1 at run time, but not to the
                            // compiler, so that A::addf stays an IMAD
                            const int one = nitems > 0;
                            const T l = (r == TJ - 1) ? A::addf(lf_p, sac2g[c], one) : lrow[c];
                            lrow[c] = A::addf(dg_p, sac2g[c], one);
                            const T m = A::addmax(lrow[c], sbc2g[r][c], up_p);
                            Hp[r][c] = A::max3(A::addf(m, sab2g[r], one), l, Hp[r][c]);
                        } else {
                            const T d = A::add(dg_p, sbc2g[r][c]);
                            const T l = A::addmax(lf_p, sac2g[c], Hp[r][c]);
                            const T m = A::addmax(d, SHIFT ? sac2g[c] : sacm[c], up_p);
                            Hp[r][c] = A::addmax(m, sab2g[r], l);
                        }
                    }
                }
#pragma unroll
                for (int r = 0; r < TJ; ++r) {
#pragma unroll
                    for (int c = 0; c < TK; ++c) {
                        T up_c, dg_c, lf_c;
                        around(Hp, Tc, Lc, r, c, up_c, dg_c, lf_c);
                        const T y = A::max3(A::addmax(dg_c, sbc2g[r][c], Hp[r][c]), up_c, lf_c);
                        Hp[r][c] = SHIFT ? y : A::addrelu(y, g2);
                    }
                }
            } else {
#pragma unroll
                for (int r = 0; r < TJ; ++r) {
#pragma unroll
                    for (int c = 0; c < TK; ++c) {
                        T up_p, dg_p, lf_p, up_c, dg_c, lf_c;
                        around(Hp, Tp, Lp, r, c, up_p, dg_p, lf_p);
                        around(Hn, Tc, Lc, r, c, up_c, dg_c, lf_c);
                        const T d = A::add(dg_p, sbc2g[r][c]);
                        const T l = A::addmax(lf_p, sac2g[c], Hp[r][c]);
                        T m = A::addmax(d, sac2g[c], up_p);
                        m = A::addmax(m, sab2g[r], l);
                        m = A::addmax(dg_c, sbc2g[r][c], m);
                        Hn[r][c] = A::max3(m, up_c, lf_c);
                    }
                }
            }
#define TRIMSA_NEW(r, c) (INPLACE ? Hp[r][c] : Hn[r][c])   // the tile's new layer

            // -- read the score --
            if (MODE == 0) {
#pragma unroll
                for (int h = 0; h < NH; ++h) {
                    if (i == la[h] && rr[h] >= -1 && dsth[h] >= 0) {
                        // row by a switch, column by masks: a run-time index into
                        // the tile would put it in local memory
                        const int uc = cc[h];
                        T v = A::splat(0);
#define TRIMSA_PICK(R)                                                                  \
    case R:                                                                             \
        if (R < TJ) {                                                                   \
            v = A::min(Lc[R < TJ ? R : 0], A::mask(h, uc == -1));                       \
            _Pragma("unroll") for (int c = 0; c < TK; ++c)                              \
                v = A::max(v, A::min(TRIMSA_NEW(R < TJ ? R : 0, c), A::mask(h, uc == c)));      \
        }                                                                               \
        break;
                        switch (rr[h]) {
                            case -1:
                                v = A::min(Tc[0], A::mask(h, uc == -1));
#pragma unroll
                                for (int c = 0; c < TK; ++c)
                                    v = A::max(v, A::min(Tc[c + 1], A::mask(h, uc == c)));
                                break;
                            TRIMSA_PICK(0) TRIMSA_PICK(1) TRIMSA_PICK(2) TRIMSA_PICK(3)
                            TRIMSA_PICK(4) TRIMSA_PICK(5) TRIMSA_PICK(6) TRIMSA_PICK(7)
                            TRIMSA_PICK(8) TRIMSA_PICK(9) TRIMSA_PICK(10) TRIMSA_PICK(11)
                            TRIMSA_PICK(12) TRIMSA_PICK(13) TRIMSA_PICK(14) TRIMSA_PICK(15)
                            default: break;
                        }
#undef TRIMSA_PICK
                        // back from H' to H
                        res[dsth[h]] = A::half(v, h) + 2 * gap * (la[h] + lb[h] + lc[h]);
                    }
                }
            } else if (MODE == 1) {
                // The far faces j = lb, k = lc and i = la. The semiglobal table
                // scores the padding residue 2*gap against anything, and the zero
                // faces past a sequence's end repeat its last value (reset_layer,
                // the faces j = 0 / k = 0), so a padding residue adds exactly 0 to
                // H' wherever it stands: H'(i, j, k) = H'(i, min(j, lb), min(k, lc))
                // for i <= la (docs/gpu.md). The last row and column of the padded
                // plane hold the far faces of both triplets of a 16-bit pair, and
                // only they are read: a fixed row / column of the tile, no switch.
                // Layers past a shorter triplet's own la are masked off. The tile
                // holds H' = H - 2g(i+j+k); along a row the correction grows by 2g
                // per column, so max_c H is one Horner sweep from the right,
                // t = max(t + 2g, H'[c]) = max_c (H'[c] + 2g c), plus one constant
                // (cell (r, c) is k = k0 + c + 1, and the face's own j = lb,
                // k = lc or i = la goes into it, per half).
                int kv[NH], kl[NH];
                bool last = false;
#pragma unroll
                for (int h = 0; h < NH; ++h) {
                    kv[h] = (i <= la[h]) ? A::TOP : A::BOTTOM;
                    kl[h] = (i == la[h]) ? A::TOP : A::BOTTOM;
                    last = last || i == la[h];
                }
                const T keep = A::pack(kv);
                if (p == P - 1 && J == nJ - 1) {
                    T t = TRIMSA_NEW(TJ - 1, TK - 1);
#pragma unroll
                    for (int c = TK - 2; c >= 0; --c) t = A::addmax(t, g2, TRIMSA_NEW(TJ - 1, c));
                    best = A::max(best, A::min(A::add(t, g2pack([&](int h) { return i + lb[h] + k0 + 1; })), keep));
                }
                if (q == Q - 1 && Kr == nK - 1) {
                    T t = TRIMSA_NEW(TJ - 1, TK - 1);
#pragma unroll
                    for (int r = TJ - 2; r >= 0; --r) t = A::addmax(t, g2, TRIMSA_NEW(r, TK - 1));
                    best = A::max(best, A::min(A::add(t, g2pack([&](int h) { return i + u0 + 1 + lc[h]; })), keep));
                }
                if (last) {
                    T tl = A::splat(0);
#pragma unroll
                    for (int r = TJ - 1; r >= 0; --r) {
                        T t = TRIMSA_NEW(r, TK - 1);
#pragma unroll
                        for (int c = TK - 2; c >= 0; --c) t = A::addmax(t, g2, TRIMSA_NEW(r, c));
                        tl = (r == TJ - 1) ? t : A::addmax(tl, g2, t);
                    }
                    best = A::max(best, A::min(A::add(tl, g2pack([&](int h) { return la[h] + u0 + k0 + 2; })), A::pack(kl)));
                }
            } else {
#pragma unroll
                for (int r = 0; r < TJ; ++r) {
                    int c = 0;
#pragma unroll
                    for (; c + 1 < TK; c += 2) best = A::max3(best, TRIMSA_NEW(r, c), TRIMSA_NEW(r, c + 1));
                    if (TK & 1) best = A::max(best, TRIMSA_NEW(r, TK - 1));
                }
            }

            // -- faces for the next regions --
            if (p == P - 1 && J + 1 < nJ) {
                unsigned int* f = jface + (unsigned)((((J + 1) & 1) * nlmax + li) * kwidth + (k0 - jbase) + 1);
                if (q == 0 && Kr == 0) __stcg(f - 1, (unsigned int)Lc[TJ - 1]);
#pragma unroll
                for (int c = 0; c < TK; ++c) __stcg(f + c, (unsigned int)TRIMSA_NEW(TJ - 1, c));
            }
            if (q == Q - 1 && Kr + 1 < nK) {
                unsigned int* f = kface + (unsigned)((((Kr + 1) & 1) * nlmax + li) * KW2 + p * TJ);
                if (split) f = kface_g + koff + ((long long)(Kr * nJ + J) * (maxla - I0 + 1) + li) * KW2 + p * TJ;
                if (p == 0) __stcg(f, (unsigned int)Tc[TK]);
#pragma unroll
                for (int r = 0; r < TJ; ++r) __stcg(f + 1 + r, (unsigned int)TRIMSA_NEW(r, TK - 1));
                if (split && ((li & 7) == 7 || i == maxla)) {
                    // publish every 8 layers: a fence per layer would dominate
                    __threadfence();
                    atomicExch(flags + foff + (Kr * nJ + J) * P + p, li + 1);
                }
            }

            // -- shift the layer (the staged kernels shift the halos below) --
#undef TRIMSA_NEW
#pragma unroll
            for (int r = 0; r < TJ; ++r) {
                if (!STAGE) Lp[r] = Lc[r];
#pragma unroll
                for (int c = 0; c < TK && !INPLACE; ++c) Hp[r][c] = Hn[r][c];
            }
#pragma unroll
            for (int c = 0; c <= TK && !STAGE; ++c) Tp[c] = Tc[c];

            // -- advance the stream --
            if (i == maxla) {
                ++rcount;
                if (MODE != 0) {
#pragma unroll
                    for (int h = 0; h < NH; ++h) {
                        int v = A::half(best, h);
                        if (dsth[h] >= 0 && v > 0) atomicMax(res + dsth[h], v);
                    }
                }
                i = I0;
                if (split) {
                    if (++J == nJ) item = nitems;     // this column is done
                } else if (++Kr == nK) {
                    Kr = 0;
                    if (++J == nJ) {
                        J = 0;
                        // the first thread (no delay) fetches the next item; the
                        // others reach this point p + q steps (and warp syncs) later
                        if (delay == 0) ring[fetched % RING] = ngroups + atomicAdd(next_item, 1);
                        item = ring[fetched % RING];
                        ++fetched;
                        load_item();
                    }
                }
            } else {
                ++i;
            }
#pragma unroll
            for (int h = 0; h < NH; ++h) anext[h] = (item < nitems) ? acode(h, i) : PAD;
        }
        // Staged kernels: the halos of the previous layer, shifted by every thread, active
        // or not (a thread that is not active yet resets them when it starts a region, one
        // that is done is not read after its lower / right neighbour's last step, one step
        // later, and the shuffles above read them before this shift). Inside the branch
        // the compiler keeps both versions and moves them twice per step. The non-staged
        // kernels shift above: with the shift here the non-staged global kernel measured
        // 6-7% slower at L >= 128 (its schedule merged the A-residue lookups into the tile;
        // eval/experiments/kernels/results/kernels-H100-2026-11-22-s6-final.md).
        if (STAGE) {
#pragma unroll
            for (int r = 0; r < TJ; ++r) Lp[r] = Lc[r];
#pragma unroll
            for (int c = 0; c <= TK; ++c) Tp[c] = Tc[c];
        }
        __syncwarp();
    }
#undef TRIMSA_XPR
}
