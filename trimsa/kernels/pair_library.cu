// The consistency library's pairwise stage on the GPU: one thread per pair of
// sequences.
//
// pair_viterbi: the global affine alignment of the pair (the recurrence, ties
//   and traceback of trimsa/progressive/_cpu.py seq_viterbi and _trace) and its
//   path.
// pair_band: from that path, the alignment's identity (_cpu._path_map) and the
//   band of the posteriors around it (_cpu.path_band).
// pair_posteriors: the match posteriors of the five-state pair HMM (short and
//   long gaps) in the band around that path (_cpu.posterior_slots), each
//   residue's K most probable partners.
//
// Both give the CPU kernels' results bit for bit: the same operations in the
// same order, in float32 (Viterbi) and float64 (posteriors), compiled without
// fused multiply-adds (the launcher passes --fmad=false), as numba compiles the
// CPU kernels.
//
// Layout. The T threads of a launch keep their working rows interleaved:
// element e of thread t lies at e * T + t, so that a warp whose pairs have
// similar lengths touches one line per access (the posteriors' rows are indexed
// from their band's first column for the same reason). Paths, the forward values
// kept for the backward pass (fM) and output slots are contiguous per pair.

#define NEGF (-1e30f)
// the largest finite double: v <= BIG is v < infinity for every number (false for NaN)
#define BIG 1.7976931348623157e308
#define AT(buf, e) (buf)[(size_t)(e) * (size_t)T + (size_t)t]

// Path codes (BOTH, A_ONLY, B_ONLY of _cpu.py).
#define P_BOTH 0
#define P_A 1
#define P_B 2

extern "C" __global__ void pair_viterbi(
    const unsigned char* __restrict__ codes,
    const long long* __restrict__ a_off, const int* __restrict__ a_len,
    const long long* __restrict__ b_off, const int* __restrict__ b_len,
    const int T, const int W,                 // threads; row stride (>= longest b + 1)
    const float* __restrict__ table, const int k,
    const float go, const float ge, const float go_end,
    float* __restrict__ rows,                 // 3 * W interleaved: M, X, Y of one row
    unsigned char* __restrict__ tb,           // (longest a + 1) * W interleaved
    const long long* __restrict__ path_off, signed char* __restrict__ path,
    int* __restrict__ npath)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    const unsigned char* a = codes + a_off[t];
    const unsigned char* b = codes + b_off[t];
    const int la = a_len[t];
    const int lb = b_len[t];
    float* M = rows;
    float* X = rows + (size_t)W * T;
    float* Y = rows + (size_t)2 * W * T;

    // row 0
    AT(M, 0) = 0.0f;
    AT(X, 0) = NEGF;
    AT(Y, 0) = NEGF;
    AT(tb, 0) = 0;
    {
        float m_prev = 0.0f, y_prev = NEGF;
        for (int j = 1; j <= lb; ++j) {
            const float c = y_prev;
            const float o = m_prev + go_end;
            float y;
            if (c >= o) { y = c + ge; AT(tb, j) = 2 << 4; }
            else { y = o + ge; AT(tb, j) = 0; }
            AT(M, j) = NEGF;
            AT(X, j) = NEGF;
            AT(Y, j) = y;
            m_prev = NEGF;
            y_prev = y;
        }
    }
    for (int i = 1; i <= la; ++i) {
        const size_t row = (size_t)i * W;
        const float go_y = (i == la) ? go_end : go;
        // column 0; (dm, dx, dy) keep the previous row's values of column j - 1
        float dm = AT(M, 0), dx = AT(X, 0), dy = AT(Y, 0);
        float x0;
        {
            const float c = dx;
            const float o = dm + go_end;
            if (c >= o) { x0 = c + ge; AT(tb, row) = 1 << 2; }
            else { x0 = o + ge; AT(tb, row) = 0; }
        }
        AT(M, 0) = NEGF;
        AT(X, 0) = x0;
        AT(Y, 0) = NEGF;
        const float* srow = table + (size_t)a[i - 1] * k;
        float m_left = NEGF, x_left = x0, y_left = NEGF;
        for (int j = 1; j <= lb; ++j) {
            const float um = AT(M, j), ux = AT(X, j), uy = AT(Y, j);
            float m = dm;
            int code = 0;
            if (dx > m) { m = dx; code = 1; }
            if (dy > m) { m = dy; code = 2; }
            const float m_new = m + srow[b[j - 1]];
            const float go_x = (j == lb) ? go_end : go;
            float best = ux;
            int src = 1;
            float o = um + go_x;
            if (o > best) { best = o; src = 0; }
            o = uy + go_x;
            if (o > best) { best = o; src = 2; }
            const float x_new = best + ge;
            code |= src << 2;
            best = y_left;
            src = 2;
            o = m_left + go_y;
            if (o > best) { best = o; src = 0; }
            o = x_left + go_y;
            if (o > best) { best = o; src = 1; }
            const float y_new = best + ge;
            code |= src << 4;
            AT(tb, row + j) = (unsigned char)code;
            AT(M, j) = m_new;
            AT(X, j) = x_new;
            AT(Y, j) = y_new;
            m_left = m_new;
            x_left = x_new;
            y_left = y_new;
            dm = um;
            dx = ux;
            dy = uy;
        }
    }
    // the best end state and the traceback (_trace)
    int state = 0;
    float s = AT(M, lb);
    if (AT(X, lb) > s) { s = AT(X, lb); state = 1; }
    if (AT(Y, lb) > s) { s = AT(Y, lb); state = 2; }
    signed char* out = path + path_off[t];
    int n = 0, i = la, j = lb;
    while (i > 0 || j > 0) {
        const int code = AT(tb, (size_t)i * W + j);
        int nxt;
        if (state == 0) { nxt = code & 3; out[n] = P_BOTH; --i; --j; }
        else if (state == 1) { nxt = (code >> 2) & 3; out[n] = P_A; --i; }
        else { nxt = (code >> 4) & 3; out[n] = P_B; --j; }
        ++n;
        state = nxt;
    }
    for (int c = 0; c < n / 2; ++c) {
        const signed char v = out[c];
        out[c] = out[n - 1 - c];
        out[n - 1 - c] = v;
    }
    npath[t] = n;
}

// The identity of each pair's path (identical residue pairs over aligned pairs,
// _cpu._path_map) and the band of `width` columns either side of it (_cpu.path_band:
// row i spans lo[i]..hi[i], clipped to 0..lb; width < 0: every column), with its cells.
extern "C" __global__ void pair_band(
    const unsigned char* __restrict__ codes,
    const long long* __restrict__ a_off, const int* __restrict__ a_len,
    const long long* __restrict__ b_off, const int* __restrict__ b_len,
    const int T, const long long* __restrict__ path_off,
    const signed char* __restrict__ path, const int* __restrict__ npath,
    const int width, const long long* __restrict__ band_off,  // per pair: la + 1 entries
    int* __restrict__ lo, int* __restrict__ hi, long long* __restrict__ cells,
    double* __restrict__ ident)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    const unsigned char* a = codes + a_off[t];
    const unsigned char* b = codes + b_off[t];
    const int la = a_len[t];
    const int lb = b_len[t];
    const signed char* p = path + path_off[t];
    const int n = npath[t];
    int* LO = lo + band_off[t];
    int* HI = hi + band_off[t];
    long long same = 0, aligned = 0;
    int i = 0, j = 0;
    LO[0] = 0;
    HI[0] = 0;
    for (int c = 0; c < n; ++c) {
        const int s = p[c];
        if (s != P_B) {
            if (s == P_BOTH) {
                ++aligned;
                if (a[i] == b[j]) ++same;
                ++j;
            }
            ++i;
            LO[i] = j;
        } else {
            ++j;
        }
        HI[i] = j;
    }
    ident[t] = aligned > 0 ? (double)same / (double)aligned : 0.0;
    long long total = 0;
    for (int r = 0; r <= la; ++r) {
        if (width < 0) {
            LO[r] = 0;
            HI[r] = lb;
        } else {
            LO[r] = LO[r] - width > 0 ? LO[r] - width : 0;
            HI[r] = HI[r] + width < lb ? HI[r] + width : lb;
        }
        total += HI[r] - LO[r] + 1;
    }
    cells[t] = total;
}

// Insert (c, p) among the K kept slots (probabilities descending) if it ranks
// (_cpu._keep; the slots hold float32, compared in double).
__device__ __forceinline__ void keep(int* cols, float* probs, const int K, const int c,
                                     const double p)
{
    if (p <= (double)probs[K - 1]) return;
    int q = K - 1;
    while (q > 0 && (double)probs[q - 1] < p) {
        probs[q] = probs[q - 1];
        cols[q] = cols[q - 1];
        --q;
    }
    probs[q] = (float)p;
    cols[q] = c;
}

// A band row of columns l..h keeps column j at element j - l of its working row, so that
// the threads of a warp, whose bands start at different columns, read and write one
// element together. ROW(buf, j, l, h): column j of such a row, 0 outside l..h, where the
// CPU's rows hold zeros wherever the recurrence reads them (the bounds grow with the row).
#define ROW(buf, j, l, h) (((j) >= (l) && (j) <= (h)) ? AT(buf, (j) - (l)) : 0.0)

extern "C" __global__ void pair_posteriors(
    const unsigned char* __restrict__ codes,
    const long long* __restrict__ a_off, const int* __restrict__ a_len,
    const long long* __restrict__ b_off, const int* __restrict__ b_len,
    const int T, const int W,                 // threads; row stride (>= longest b + 1)
    const double* __restrict__ odds, const int k,   // k * k per pair
    const double* __restrict__ gaps_,         // 4 per pair: d1, e1, d2, e2
    const double floor_,
    const long long* __restrict__ band_off,   // per pair: la + 1 entries of lo and hi
    const int* __restrict__ lo, const int* __restrict__ hi,
    const long long fstride,                  // fM: each pair's band cells, contiguous
    float* __restrict__ fM,
    double* __restrict__ rows,                // 10 * W interleaved
    double* __restrict__ scale,               // (longest a + 2) interleaved
    const int K, const long long* __restrict__ out_off,  // per pair: la + lb rows of K slots
    int* __restrict__ out_cols, float* __restrict__ out_probs,
    unsigned char* __restrict__ ok)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    const unsigned char* a = codes + a_off[t];
    const unsigned char* b = codes + b_off[t];
    const int la = a_len[t];
    const int lb = b_len[t];
    const double* od = odds + (size_t)t * k * k;
    const double d1 = gaps_[(size_t)t * 4];
    const double e1 = gaps_[(size_t)t * 4 + 1];
    const double d2 = gaps_[(size_t)t * 4 + 2];
    const double e2 = gaps_[(size_t)t * 4 + 3];
    const double mm = 1.0 - 2.0 * d1 - 2.0 * d2;
    const double g1 = 1.0 - e1;
    const double g2 = 1.0 - e2;
    const int* LO = lo + band_off[t];
    const int* HI = hi + band_off[t];
    float* F = fM + (size_t)t * (size_t)fstride;
    int* ca = out_cols + out_off[t] * K;
    float* pa = out_probs + out_off[t] * K;
    int* cb = ca + (size_t)la * K;
    float* pb = pa + (size_t)la * K;
    ok[t] = 0;
    for (int e = 0; e < (la + lb) * K; ++e) { ca[e] = -1; pa[e] = 0.0f; }
    double* r[10];
    for (int q = 0; q < 10; ++q) r[q] = rows + (size_t)q * W * T;
    // forward (_cpu.posterior_slots): (fMp, fXp, fYp, fUp, fVp) the previous row,
    // (fMc, ...) the current one; X / Y short gaps (a residue of a / of b against a gap),
    // U / V long ones. A row is kept as computed; the CPU scales it by 1 / its largest
    // value in place, here its reader multiplies each value by that factor (rp), the
    // same product.
    double *fMp = r[0], *fXp = r[1], *fYp = r[2], *fUp = r[3], *fVp = r[4];
    double *fMc = r[5], *fXc = r[6], *fYc = r[7], *fUc = r[8], *fVc = r[9];
    AT(scale, 0) = 1.0;
    {
        double y = 0.0, v = 0.0, m = 1.0;
        AT(fMp, 0) = 1.0;
        AT(fXp, 0) = 0.0;
        AT(fYp, 0) = 0.0;
        AT(fUp, 0) = 0.0;
        AT(fVp, 0) = 0.0;
        F[0] = 1.0f;
        for (int j = 1; j <= HI[0]; ++j) {
            y = d1 * m + e1 * y;
            v = d2 * m + e2 * v;
            m = 0.0;
            AT(fMp, j) = 0.0;
            AT(fXp, j) = 0.0;
            AT(fYp, j) = y;
            AT(fUp, j) = 0.0;
            AT(fVp, j) = v;
            F[j] = 0.0f;
        }
    }
    double rp = 1.0;    // the previous row's factor (row 0 is not scaled)
    long long start = HI[0] + 1;  // the band row's first cell in F
    for (int i = 1; i <= la; ++i) {
        const double* oi = od + (size_t)a[i - 1] * k;
        const int l = LO[i];
        const int h = HI[i];
        const int lp = LO[i - 1];
        const int hp = HI[i - 1];
        double top = 0.0, m_left = 0.0, y_left = 0.0, v_left = 0.0;
        // the previous row at column j - 1 (scaled), carried from one column to the next
        // (outside the previous band: 0, not scaled, as the CPU's zeros)
        double pm = 0.0, px = 0.0, py = 0.0, pu = 0.0, pv = 0.0;
        if (l - 1 >= lp && l - 1 <= hp) {
            pm = AT(fMp, l - 1 - lp) * rp;
            px = AT(fXp, l - 1 - lp) * rp;
            py = AT(fYp, l - 1 - lp) * rp;
            pu = AT(fUp, l - 1 - lp) * rp;
            pv = AT(fVp, l - 1 - lp) * rp;
        }
        for (int j = l; j <= h; ++j) {
            double cm = 0.0, cx = 0.0, cy = 0.0, cu = 0.0, cv = 0.0;
            if (j >= lp && j <= hp) {
                cm = AT(fMp, j - lp) * rp;
                cx = AT(fXp, j - lp) * rp;
                cy = AT(fYp, j - lp) * rp;
                cu = AT(fUp, j - lp) * rp;
                cv = AT(fVp, j - lp) * rp;
            }
            double m, y, v;
            if (j == 0) { m = 0.0; y = 0.0; v = 0.0; }
            else {
                m = oi[b[j - 1]] * (mm * pm + g1 * (px + py) + g2 * (pu + pv));
                y = d1 * m_left + e1 * y_left;
                v = d2 * m_left + e2 * v_left;
            }
            const double x = d1 * cm + e1 * cx;
            const double u = d2 * cm + e2 * cu;
            const int q = j - l;
            AT(fMc, q) = m;
            AT(fXc, q) = x;
            AT(fYc, q) = y;
            AT(fUc, q) = u;
            AT(fVc, q) = v;
            m_left = m;
            y_left = y;
            v_left = v;
            if (m > top) top = m;
            if (x > top) top = x;
            if (y > top) top = y;
            if (u > top) top = u;
            if (v > top) top = v;
            pm = cm; px = cx; py = cy; pu = cu; pv = cv;
        }
        if (!(top > 0.0 && top <= BIG)) return;
        rp = 1.0 / top;
        AT(scale, i) = top;
        for (int j = l; j <= h; ++j) F[start + j - l] = (float)(AT(fMc, j - l) * rp);
        start += h - l + 1;
        double* sw;
        sw = fMp; fMp = fMc; fMc = sw;
        sw = fXp; fXp = fXc; fXc = sw;
        sw = fYp; fYp = fYc; fYc = sw;
        sw = fUp; fUp = fUc; fUc = sw;
        sw = fVp; fVp = fVc; fVc = sw;
    }
    // the last row at column lb (its band ends there), scaled
    const int ql = lb - LO[la];
    const double z = AT(fMp, ql) * rp + AT(fXp, ql) * rp + AT(fYp, ql) * rp
                     + AT(fUp, ql) * rp + AT(fVp, ql) * rp;
    if (!(z > 0.0 && z <= BIG)) return;
    // backward, rolling rows: (bMn, bXn, bUn) row i + 1 scaled by 1 / scale[i + 1], the
    // others row i; Y and V of row i are read only within it (column j + 1), so they stay
    // in registers
    double *bMn = r[0], *bXn = r[1], *bUn = r[2];
    double *bMc = r[3], *bXc = r[4], *bUc = r[5];
    const double rz = 1.0 / z;
    for (int i = la; i > 0; --i) {
        const double s = (i < la) ? 1.0 / AT(scale, i + 1) : 0.0;
        const int l = LO[i];
        const int h = HI[i];
        const int ln = (i < la) ? LO[i + 1] : 0;
        const int hn = (i < la) ? HI[i + 1] : -1;
        double yr = 0.0, vr = 0.0;   // row i at column j + 1
        for (int j = h; j >= l; --j) {
            const int q = j - l;
            if (i == la && j == lb) {
                AT(bMc, q) = 1.0;
                AT(bXc, q) = 1.0;
                AT(bUc, q) = 1.0;
                yr = 1.0;
                vr = 1.0;
                continue;
            }
            double mnext = 0.0;
            if (i < la && j < lb) mnext = od[(size_t)a[i] * k + b[j]] * ROW(bMn, j + 1, ln, hn) * s;
            const double xnext = (i < la) ? ROW(bXn, j, ln, hn) * s : 0.0;
            const double unext = (i < la) ? ROW(bUn, j, ln, hn) * s : 0.0;
            const double ynext = (j < lb) ? yr : 0.0;
            const double vnext = (j < lb) ? vr : 0.0;
            AT(bMc, q) = mm * mnext + d1 * xnext + d1 * ynext + d2 * unext + d2 * vnext;
            AT(bXc, q) = g1 * mnext + e1 * xnext;
            AT(bUc, q) = g2 * mnext + e2 * unext;
            yr = g1 * mnext + e1 * ynext;
            vr = g2 * mnext + e2 * vnext;
        }
        start -= h - l + 1;
        for (int j = (l > 1 ? l : 1); j <= h; ++j) {
            const double p = (double)F[start + j - l] * AT(bMc, j - l) * rz;
            if (p >= floor_) {
                if (!(p <= BIG)) return;
                keep(ca + (size_t)(i - 1) * K, pa + (size_t)(i - 1) * K, K, j - 1, p);
                keep(cb + (size_t)(j - 1) * K, pb + (size_t)(j - 1) * K, K, i - 1, p);
            }
        }
        double* sw;
        sw = bMn; bMn = bMc; bMc = sw;
        sw = bXn; bXn = bXc; bXc = sw;
        sw = bUn; bUn = bUc; bUc = sw;
    }
    ok[t] = 1;
}
