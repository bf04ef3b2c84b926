// Banded global pairwise scores on the GPU: one thread per pair.
//
// band_pair_score: the score of trimsa/triplet/_band.py band_pair for each pair,
//   bit for bit (the same int32 recurrence, in the same order): natural affine gaps
//   (a run of L gaps scores go + ge L; linear gaps: go = 0), three states per cell
//   (M: two residues, X: a's residue against a gap, Y: a gap against b's residue),
//   the band of half-width w around the scaled diagonal of the longer sequence a,
//   cj(i) = floor((2 i |b| + |a|) / (2 |a|)).
//
// Layout. Each thread keeps six working rows of 2w + 3 int32 (previous and current
// M, X, Y); element e of row r of thread t lies at (r * (2w + 3) + e) * T + t, so that
// the threads of a warp, whose pairs have similar lengths, touch one line per access.

#define NEG (-(1 << 29))

__device__ __forceinline__ int max3(int x, int y, int z) { return max(max(x, y), z); }

extern "C" __global__ void band_pair_score(
    const unsigned char* __restrict__ codes, const long long* __restrict__ offsets,
    const long long* __restrict__ pairs, const int* __restrict__ sub, const int nsub,
    const int go, const int ge, const int w, const long long T, int* __restrict__ rows,
    long long* __restrict__ out)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    long long s0 = pairs[2 * t], s1 = pairs[2 * t + 1];
    long long l0 = offsets[s0 + 1] - offsets[s0];
    long long l1 = offsets[s1 + 1] - offsets[s1];
    if (l1 > l0 || (l1 == l0 && s1 < s0)) {   // canonical order, as the CPU kernel
        long long s = s0; s0 = s1; s1 = s;
        long long l = l0; l0 = l1; l1 = l;
    }
    const unsigned char* a = codes + offsets[s0];
    const unsigned char* b = codes + offsets[s1];
    const long long la = l0, lb = l1;
    const int W = 2 * w + 1, W2 = 2 * w + 3;
    const int og = go + ge;
#define R(r, e) rows[((long long)(r) * W2 + (e)) * T + t]
    int pm = 0, px = 1, py = 2, cm = 3, cx = 4, cy = 5;
    for (int r = 0; r < 6; ++r)
        for (int e = 0; e < W2; ++e) R(r, e) = NEG;
    long long pj0 = -w;
    for (int u = 0; u < W; ++u) {
        const long long j = pj0 + u;
        if (j < 0 || j > lb) continue;
        if (j == 0) R(pm, u + 1) = 0;
        else R(py, u + 1) = go + ge * (int)j;
    }
    for (long long i = 1; i <= la; ++i) {
        const long long j0 = (2 * i * lb + la) / (2 * la) - w;
        const int dj = (int)(j0 - pj0);
        const int ai = a[i - 1];
        for (int u = 0; u < W; ++u) {
            const long long j = j0 + u;
            if (j < 0 || j > lb) {
                R(cm, u + 1) = NEG;
                R(cx, u + 1) = NEG;
                R(cy, u + 1) = NEG;
                continue;
            }
            const int pu = u + 1 + dj;
            const int x = max3(R(pm, pu) + og, R(px, pu) + ge, R(py, pu) + og);
            R(cx, u + 1) = max(x, NEG);
            if (j == 0) {
                R(cm, u + 1) = NEG;
                R(cy, u + 1) = NEG;
                continue;
            }
            const int m = max3(R(pm, pu - 1), R(px, pu - 1), R(py, pu - 1))
                          + sub[ai * nsub + b[j - 1]];
            R(cm, u + 1) = max(m, NEG);
            const int y = max3(R(cm, u) + og, R(cy, u) + ge, R(cx, u) + og);
            R(cy, u + 1) = max(y, NEG);
        }
        int s;
        s = pm; pm = cm; cm = s;
        s = px; px = cx; cx = s;
        s = py; py = cy; cy = s;
        pj0 = j0;
    }
    const int e = (int)(lb - pj0 + 1);
    out[t] = (long long)max3(R(pm, e), R(px, e), R(py, e));
#undef R
}
