// The bounds of the pruned exact affine 3-way programme (trimsa/triplet/_pruned.py,
// docs/engine.md "Bound-pruned cubes"), on the GPU; the bands they give are swept by
// affine_score<..., BAND, ...> of triplet_affine.cu.
//
// pair_loss: one warp per pair (u, v). D[x (|v| + 1) + y] = the best global affine
//   alignment through cell (x, y) less the optimum, clipped at LOSS_FLOOR (int16), as
//   _pruned.pair_loss, bit for bit. The square is swept in chunks of 32 columns, lane
//   q owning column y0 + q and working one row behind lane q - 1 (a wavefront), so the
//   left neighbour of this row arrives by shuffle and the diagonal one is the value
//   shuffled the step before. The forward states (3 per cell) go to a scratch area in
//   global memory, plane by plane; lane 0 of a chunk reads its left column there. The
//   backward sweep runs the same way from the far corner (columns and rows reversed),
//   its lane 0 reading the last column of the chunk before from a per-warp buffer
//   (two, by chunk parity), and writes each cell's loss.
//
// bound_band: one warp per triplet (layers a, rows b, columns c, as the band kernels
//   take them). In layer i the rectangle bounds the cells (j, k) with D_ab[i, j] +
//   D_ac[i, k] + D_bc[j, k] >= -delta (and, with paths, the cells of zero loss of (a,
//   b) and (a, c)); the candidate rows are taken one at a time, lanes striding over the
//   candidate columns, and warp reductions fold the bounds.
//   Then lane 0 makes the bounds non-decreasing in i and counts the band's cells, as
//   _pruned.bound_band does (-1 for a layer left empty).

#define NEG (-(1 << 29))
#define TRIMSA_FULL 0xffffffffu
#define LOSS_FLOOR (-32767)
#define BIG (1 << 30)

__device__ __forceinline__ int max3(int x, int y, int z) { return max(max(x, y), z); }

extern "C" __global__ void pair_loss(const unsigned char* __restrict__ codes,
                                     const long long* __restrict__ offsets,
                                     const int* __restrict__ pairs,        // (P, 2)
                                     int P,
                                     const long long* __restrict__ doff,   // (P + 1) cells
                                     const long long* __restrict__ foff,   // (P + 1) cells
                                     const int* __restrict__ subtab, int KP, int go, int ge,
                                     int* __restrict__ fscr,               // 3 cells per cell
                                     int* __restrict__ gbuf, long long gwords,  // per warp
                                     short* __restrict__ D, long long* __restrict__ opt)
{
    __shared__ int sub_s[32 * 32];
    for (int x = threadIdx.x; x < KP * KP; x += blockDim.x) sub_s[(x / KP) * 32 + x % KP] = subtab[x];
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int gwarp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int nwarps = (gridDim.x * blockDim.x) >> 5;
    const int og = go + ge;
    int* gb = gbuf + (long long)gwarp * gwords;
    for (int p = gwarp; p < P; p += nwarps) {
        const int s = pairs[2 * p], t = pairs[2 * p + 1];
        const unsigned char* u = codes + offsets[s];
        const unsigned char* v = codes + offsets[t];
        const int n = (int)(offsets[s + 1] - offsets[s]);
        const int m = (int)(offsets[t + 1] - offsets[t]);
        const long long w = m + 1;
        const long long cells = (long long)(n + 1) * w;
        int* F0 = fscr + 3 * foff[p];
        int* F1 = F0 + cells;
        int* F2 = F1 + cells;
        // forward
        for (int y0 = 0; y0 <= m; y0 += 32) {
            const int y = y0 + lane;
            const bool col = y <= m;
            const int vy = (col && y > 0) ? v[y - 1] : 0;
            int up0 = NEG, up1 = NEG, up2 = NEG;        // (x - 1, y)
            int cu0 = NEG, cu1 = NEG, cu2 = NEG;        // this lane's last cell
            int dg0 = NEG, dg1 = NEG, dg2 = NEG;        // (x - 1, y - 1)
            for (int t = 0; t <= n + 31; ++t) {
                const int x = t - lane;
                int l0 = __shfl_up_sync(TRIMSA_FULL, cu0, 1);   // (x, y - 1)
                int l1 = __shfl_up_sync(TRIMSA_FULL, cu1, 1);
                int l2 = __shfl_up_sync(TRIMSA_FULL, cu2, 1);
                if (lane == 0) {
                    l0 = l1 = l2 = NEG;
                    if (y0 > 0 && x >= 0 && x <= n) {
                        const long long q = (long long)x * w + y0 - 1;
                        l0 = F0[q]; l1 = F1[q]; l2 = F2[q];
                    }
                }
                if (x >= 0 && x <= n && col) {
                    int f0 = NEG, f1 = NEG, f2 = NEG;
                    if (x == 0 && y == 0) {
                        f0 = 0;
                    } else {
                        if (x > 0 && y > 0) f0 = max3(dg0, dg1, dg2) + sub_s[u[x - 1] * 32 + vy];
                        if (x > 0) f1 = max(up1 + ge, max(up0, up2) + og);
                        if (y > 0) f2 = max(l2 + ge, max(l0, l1) + og);
                        f0 = max(f0, NEG); f1 = max(f1, NEG); f2 = max(f2, NEG);
                    }
                    const long long q = (long long)x * w + y;
                    F0[q] = f0; F1[q] = f1; F2[q] = f2;
                    up0 = f0; up1 = f1; up2 = f2;
                    cu0 = f0; cu1 = f1; cu2 = f2;
                } else {
                    cu0 = cu1 = cu2 = NEG;
                }
                dg0 = l0; dg1 = l1; dg2 = l2;
            }
            __syncwarp();
        }
        const long long last = cells - 1;
        const int best = max3(F0[last], F1[last], F2[last]);
        if (lane == 0) opt[p] = best;
        short* Dp = D + doff[p];
        // backward, from the far corner: xr = n - x, yr = m - y
        for (int c = 0, yr0 = 0; yr0 <= m; ++c, yr0 += 32) {
            int* rd = gb + (long long)((c + 1) & 1) * 2 * (n + 1);
            int* wr = gb + (long long)(c & 1) * 2 * (n + 1);
            const int y = m - (yr0 + lane);
            const bool col = y >= 0;
            const int vy = col && y < m ? v[y] : 0;
            int up1 = NEG;                               // G_1 (x + 1, y)
            int cu0 = NEG, cu2 = NEG;                    // this lane's last cell: G_0, G_2
            int dg0 = NEG;                               // G_0 (x + 1, y + 1)
            for (int t = 0; t <= n + 31; ++t) {
                const int xr = t - lane;
                const int x = n - xr;
                int l0 = __shfl_up_sync(TRIMSA_FULL, cu0, 1);   // (x, y + 1): G_0, G_2
                int l2 = __shfl_up_sync(TRIMSA_FULL, cu2, 1);
                if (lane == 0) {
                    l0 = l2 = NEG;
                    if (yr0 > 0 && xr >= 0 && xr <= n) {
                        l0 = rd[2 * xr];
                        l2 = rd[2 * xr + 1];
                    }
                }
                if (xr >= 0 && xr <= n && col) {
                    int g0, g1, g2;
                    if (x == n && y == m) {
                        g0 = g1 = g2 = 0;
                    } else {
                        const int mt = (x < n && y < m) ? sub_s[u[x] * 32 + vy] + dg0 : NEG;
                        const int gx = x < n ? up1 + ge : NEG;
                        const int gy = y < m ? l2 + ge : NEG;
                        g0 = max(max(mt, max(gx, gy) + go), NEG);
                        g1 = max(max(mt, max(gx, gy + go)), NEG);
                        g2 = max(max(mt, max(gx + go, gy)), NEG);
                    }
                    const long long q = (long long)x * w + y;
                    const int ub = max3(F0[q] + g0, F1[q] + g1, F2[q] + g2);
                    Dp[q] = (short)max(ub - best, LOSS_FLOOR);
                    if (lane == 31) {
                        wr[2 * xr] = g0;
                        wr[2 * xr + 1] = g2;
                    }
                    up1 = g1;
                    cu0 = g0; cu2 = g2;
                } else {
                    cu0 = cu2 = NEG;
                }
                dg0 = l0;
            }
            __syncwarp();
        }
    }
}

__device__ __forceinline__ int loss_at(const short* __restrict__ D, long long off, bool rev,
                                       long long wide, int x, int y) {
    return rev ? (int)D[off + (long long)y * wide + x] : (int)D[off + (long long)x * wide + y];
}

__device__ __forceinline__ int wmin(int v) { return __reduce_min_sync(TRIMSA_FULL, v); }
__device__ __forceinline__ int wmax(int v) { return __reduce_max_sync(TRIMSA_FULL, v); }

extern "C" __global__ void bound_band(const long long* __restrict__ offsets,
                                      const int* __restrict__ trip,       // (T, 3)
                                      int T,
                                      const short* __restrict__ D,
                                      const long long* __restrict__ doff,  // pair offsets
                                      const int* __restrict__ slots,      // (T, 3)
                                      const unsigned char* __restrict__ rev,   // (T, 3)
                                      const int* __restrict__ lim_,       // (T): -delta
                                      const unsigned char* __restrict__ paths,  // (T)
                                      const long long* __restrict__ band_off,   // (T) layers
                                      int* __restrict__ band,             // (layers, 4)
                                      long long* __restrict__ cells)
{
    const int lane = threadIdx.x & 31;
    const int gwarp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int nwarps = (gridDim.x * blockDim.x) >> 5;
    for (int t = gwarp; t < T; t += nwarps) {
        const int sa = trip[3 * t], sb = trip[3 * t + 1], sc = trip[3 * t + 2];
        const int la = (int)(offsets[sa + 1] - offsets[sa]);
        const int lb = (int)(offsets[sb + 1] - offsets[sb]);
        const int lc = (int)(offsets[sc + 1] - offsets[sc]);
        const bool r0 = rev[3 * t], r1 = rev[3 * t + 1], r2 = rev[3 * t + 2];
        const long long o0 = doff[slots[3 * t]], o1 = doff[slots[3 * t + 1]],
                        o2 = doff[slots[3 * t + 2]];
        const long long w0 = (r0 ? la : lb) + 1, w1 = (r1 ? la : lc) + 1, w2 = (r2 ? lb : lc) + 1;
        const int lim = lim_[t];
        const bool pa = paths[t];
        int* bd = band + 4 * band_off[t];
        for (int i = 0; i <= la; ++i) {
            int jl0 = BIG, jh0 = -1, jz0 = BIG, jz1 = -1;
            for (int j = lane; j <= lb; j += 32) {
                const int d = loss_at(D, o0, r0, w0, i, j);
                if (d >= lim) { jl0 = min(jl0, j); jh0 = j; }
                if (d == 0) { jz0 = min(jz0, j); jz1 = j; }
            }
            jl0 = wmin(jl0); jh0 = wmax(jh0); jz0 = wmin(jz0); jz1 = wmax(jz1);
            int kl0 = BIG, kh0 = -1, kz0 = BIG, kz1 = -1;
            for (int k = lane; k <= lc; k += 32) {
                const int d = loss_at(D, o1, r1, w1, i, k);
                if (d >= lim) { kl0 = min(kl0, k); kh0 = k; }
                if (d == 0) { kz0 = min(kz0, k); kz1 = k; }
            }
            kl0 = wmin(kl0); kh0 = wmax(kh0); kz0 = wmin(kz0); kz1 = wmax(kz1);
            int jl = BIG, jh = -1, kl = BIG, kh = -1;
            if (jh0 >= 0 && kh0 >= 0) {
                // candidate rows one at a time (warp-uniform), lanes along the columns
                for (int j = jl0; j <= jh0; ++j) {
                    const int dj = loss_at(D, o0, r0, w0, i, j);
                    if (dj < lim) continue;
                    bool hit = false;
                    for (int k = kl0 + lane; k <= kh0; k += 32) {
                        const int dk = loss_at(D, o1, r1, w1, i, k);
                        if (dj + dk < lim) continue;
                        if (dj + dk + loss_at(D, o2, r2, w2, j, k) >= lim) {
                            hit = true;
                            kl = min(kl, k); kh = max(kh, k);
                        }
                    }
                    if (__any_sync(TRIMSA_FULL, hit)) {
                        jl = min(jl, j); jh = j;
                    }
                }
                kl = wmin(kl); kh = wmax(kh);
            }
            if (pa) {
                jl = min(jl, jz0); jh = max(jh, jz1); kl = min(kl, kz0); kh = max(kh, kz1);
            }
            if (lane == 0) {
                bd[4 * i] = jl; bd[4 * i + 1] = jh; bd[4 * i + 2] = kl; bd[4 * i + 3] = kh;
            }
        }
        __syncwarp();
        if (lane == 0) {
            for (int i = 1; i <= la; ++i) {
                bd[4 * i + 1] = max(bd[4 * i + 1], bd[4 * (i - 1) + 1]);
                bd[4 * i + 3] = max(bd[4 * i + 3], bd[4 * (i - 1) + 3]);
            }
            long long total = 0;
            bool ok = true;
            for (int i = la; i >= 0; --i) {
                if (i < la) {
                    bd[4 * i] = min(bd[4 * i], bd[4 * (i + 1)]);
                    bd[4 * i + 2] = min(bd[4 * i + 2], bd[4 * (i + 1) + 2]);
                }
                if (bd[4 * i + 1] < bd[4 * i] || bd[4 * i + 3] < bd[4 * i + 2]) ok = false;
                total += (long long)(bd[4 * i + 1] - bd[4 * i] + 1) * (bd[4 * i + 3] - bd[4 * i + 2] + 1);
            }
            cells[t] = ok ? total : -1;
        }
        __syncwarp();
    }
}
