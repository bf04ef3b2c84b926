// Sloped-plane sweep of the 3-way DP in registers, and the layered tile beside it:
// measurement kernels, not part of trimsa.
//
// proxy_sloped.py (this folder) compiles them (with trimsa/kernels/dpx.cuh inlined before them),
// checks their cells against a plain DP in Python and times them. They answer one question:
// does the sloped decomposition of 003_*.txt (planes t = I + J + K, every cell of a plane
// independent of the others) run faster per cell than the layered tiles of triplet_score.cu,
// whose wavefront inside a layer is a chain of dependent operations? (Session 14: no, 0.98x
// in 16 bits and 0.93x in 32 bits; results/sloped-H100-2026-11-24-s14.md.)
//
// Scope of both (what the product kernel needs and these leave out, so each bounds its
// design from above): one region of RJ x RK = (P*TJ) x (Q*TK) cells per warp, one item
// (or one pair of items in 16 bits) per warp for the whole launch, zero faces (H = 0 at
// I = 0, J = 0 or K = 0, the semiglobal DP without its far-face readout), at most 4 letters.
//
// Cell (r, c) of lane (p, q), lane = p*Q + q, is the DP cell J = p*TJ + r + 1,
// K = q*TK + c + 1. At step t every cell computes plane t: I = t - J - K. With the shifted
// value H' = H - g2*t (g2 = 2*gap), uniform on a plane, and x_xy = s_xy - g2:
//   H'(t) = max( H'1(own), H'1(up), H'1(left),                       plane t-1
//                H'2(up) + x_ab, H'2(left) + x_ac, H'2(diag) + x_bc,   plane t-2
//                H'3(diag) + x_ab + x_ac + x_bc )                      plane t-3
// (up = J-1, left = K-1, diag = both), and the faces are H' = -g2*t. Nothing in plane t
// reads plane t, so a thread's TJ*TK cells are independent operations; the price is three
// planes in registers, and x_ab = x(A[I], B[J]), x_ac = x(A[I], C[K]) now differ from cell
// to cell (I is the same only along the tile's anti-diagonals). They are taken with one
// PRMT each from a per-row (per-column) word of the four letters' scores (one byte each),
// with a selector per anti-diagonal that names the A letter(s) of its I (sign-extending
// the byte: 16-bit halves or a 32-bit word).
//
// The new plane overwrites plane t-3 in place, cells from the bottom-right corner (a cell
// reads plane t-3 only at its diagonal neighbour, which is done by then). The three planes,
// their halos and the corners rotate roles from step to step with no copies: the loop body
// is three steps with the arrays passed in rotated order.

// PRMT in its default mode, where a selector nibble with bit 3 set replicates the sign of the
// byte it selects (__byte_perm keeps only the low 3 bits of each nibble).
__device__ __forceinline__ unsigned prmt_sx(unsigned lo, unsigned hi, unsigned sel) {
    unsigned d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(lo), "r"(hi), "r"(sel));
    return d;
}

// The up, left and diagonal neighbours of cell (r, c) in a tile, from the halos (upper row U,
// left column L, corner C) on the tile's edges.
template <class T, int TJ, int TK>
struct Around {
    T up, lf, dg;
    __device__ __forceinline__ Around(const T (&X)[TJ][TK], const T (&U)[TK], const T (&L)[TJ], T C,
                                      int r, int c)
        : up(r ? X[r - 1][c] : U[c]), lf(c ? X[r][c - 1] : L[r]),
          dg((r && c) ? X[r - 1][c - 1] : (r ? L[r - 1] : (c ? U[c - 1] : C))) {}
};

// One step: plane t into X3 (which holds plane t-3 on entry).
//  X1, X2: planes t-1, t-2.  U1/L1/C2 are refreshed here (plane t-1's upper row and left
//  column, plane t-2's corner); U2/L2 (t-2), U3/L3/C3 (t-3) are from earlier steps.
template <class A, int TJ, int TK, int Q, bool IM, bool FILL>
__device__ __forceinline__ void sloped_step(
    typename A::T (&X1)[TJ][TK], typename A::T (&X2)[TJ][TK], typename A::T (&X3)[TJ][TK],
    typename A::T (&U1)[TK], typename A::T (&U2)[TK], typename A::T (&U3)[TK],
    typename A::T (&L1)[TJ], typename A::T (&L2)[TJ], typename A::T (&L3)[TJ],
    typename A::T& C2, typename A::T& C3,
    unsigned (&sel)[TJ + TK - 1], unsigned& next_sel, const unsigned* __restrict__ sels, int& si,
    const unsigned (&RB0)[TJ], const unsigned (&RB1)[TJ], const unsigned (&RC0)[TK],
    const unsigned (&RC1)[TK], const typename A::T (&XBC)[TJ][TK],
    typename A::T& face1, typename A::T ng2, typename A::T g2s, bool top, bool leftmost, int one, int t, int off) {
    typedef typename A::T T;
    const unsigned full = 0xffffffffu;
    // halos of plane t-1 from the neighbours (their X1), corner of plane t-2 from the upper-left one
#pragma unroll
    for (int c = 0; c < TK; ++c) U1[c] = __shfl_up_sync(full, X1[TJ - 1][c], Q);
#pragma unroll
    for (int r = 0; r < TJ; ++r) L1[r] = __shfl_up_sync(full, X1[r][TK - 1], 1);
    C2 = __shfl_up_sync(full, X2[TJ - 1][TK - 1], Q + 1);
    if (top || leftmost) C2 = A::add(face1, g2s);
    if (top) {
#pragma unroll
        for (int c = 0; c < TK; ++c) U1[c] = face1;
    }
    if (leftmost) {
#pragma unroll
        for (int r = 0; r < TJ; ++r) L1[r] = face1;
    }
    // selectors: anti-diagonal d of the tile has I = t - 2 - off - d
#pragma unroll
    for (int d = TJ + TK - 2; d > 0; --d) sel[d] = sel[d - 1];
    sel[0] = next_sel;
    next_sel = __ldg(sels + (++si));
    const T facet = A::add(face1, ng2);
#pragma unroll
    for (int rr = 0; rr < TJ; ++rr) {
        const int r = TJ - 1 - rr;
#pragma unroll
        for (int cc = 0; cc < TK; ++cc) {
            const int c = TK - 1 - cc;
            const T own = X1[r][c];
            const Around<T, TJ, TK> n1(X1, U1, L1, C2, r, c), n2(X2, U2, L2, C2, r, c),
                n3(X3, U3, L3, C3, r, c);
            const T up1 = n1.up, lf1 = n1.lf, up2 = n2.up, lf2 = n2.lf, dg2 = n2.dg, dg3 = n3.dg;
            const unsigned s = sel[r + c];
            const T xab = (T)prmt_sx(RB0[r], RB1[r], s);
            const T xac = (T)prmt_sx(RC0[c], RC1[c], s);
            const T xbc = XBC[r][c];
            T h;
            if constexpr (IM) {
                const T m0 = A::max3(own, up1, lf1);
                const T m1 = A::max3(m0, A::addf(dg2, xbc, one), A::addf(lf2, xac, one));
                const T e = A::addf(dg3, xbc, one);
                const T f = A::addmax(e, xac, up2);
                h = A::addmax(f, xab, m1);
            } else {
                const T m0 = A::max3(own, up1, lf1);
                const T m1 = A::addmax(dg2, xbc, m0);
                const T m2 = A::addmax(lf2, xac, m1);
                const T e = A::add(dg3, xbc);
                const T f = A::addmax(e, xac, up2);
                h = A::addmax(f, xab, m2);
            }
            if constexpr (FILL) {
                if (t - 2 - off - (r + c) <= 0) h = facet;
            }
            X3[r][c] = h;
        }
    }
    face1 = facet;
}

// The lane's profile words (rows of B, columns of C) and its tile's B x C scores.
template <class A, int TJ, int TK, int Q>
__device__ __forceinline__ void load_scores(
    const unsigned* __restrict__ rb0, const unsigned* __restrict__ rb1,
    const unsigned* __restrict__ rc0, const unsigned* __restrict__ rc1,
    const typename A::T* __restrict__ xbc, int p, int q, unsigned (&RB0)[TJ], unsigned (&RB1)[TJ],
    unsigned (&RC0)[TK], unsigned (&RC1)[TK], typename A::T (&XBC)[TJ][TK]) {
    constexpr int RK = Q * TK;
#pragma unroll
    for (int r = 0; r < TJ; ++r) { RB0[r] = rb0[p * TJ + r]; RB1[r] = rb1[p * TJ + r]; }
#pragma unroll
    for (int c = 0; c < TK; ++c) { RC0[c] = rc0[q * TK + c]; RC1[c] = rc1[q * TK + c]; }
#pragma unroll
    for (int r = 0; r < TJ; ++r)
#pragma unroll
        for (int c = 0; c < TK; ++c) XBC[r][c] = xbc[(p * TJ + r) * RK + q * TK + c];
}

// One warp per region (RJ x RK = (32/Q*TJ) x (Q*TK)), all warps the same item(s).
//  rb0/rb1[RJ]: per row J, the x(a, B[J]) of letters a = 0..3, one byte each (16 bits: rb0 the
//    low half's item, rb1 the high half's; 32 bits: rb1 unused); rc0/rc1[RK] likewise for C.
//  xbc[RJ*RK]: x(B[J], C[K]) as lane values.  sels[i + bias]: the PRMT selector of A[I] for
//    I = i (any value where I <= 0).  fill: steps with the I <= 0 cells forced to the face
//    (a multiple of 3, at least RJ + RK); steps: all steps (a multiple of 3).
//  out: per thread its final plane (t = steps) and the one before, TJ*TK each, and a checksum
//  of all planes per thread at out_sum (so that no step is dead code).
template <class A, int TJ, int TK, int Q, bool IM, int MINB>
__global__ void __launch_bounds__(128, MINB) sloped_kernel(
    const unsigned* __restrict__ rb0, const unsigned* __restrict__ rb1,
    const unsigned* __restrict__ rc0, const unsigned* __restrict__ rc1,
    const typename A::T* __restrict__ xbc, const unsigned* __restrict__ sels, int bias,
    typename A::T ng2, typename A::T g2s, int fill, int steps, int one,
    typename A::T* __restrict__ out, unsigned* __restrict__ out_sum) {
    typedef typename A::T T;
    const int lane = threadIdx.x & 31, p = lane / Q, q = lane % Q;
    const int off = p * TJ + q * TK;
    unsigned RB0[TJ], RB1[TJ], RC0[TK], RC1[TK];
    T XBC[TJ][TK];
    load_scores<A, TJ, TK, Q>(rb0, rb1, rc0, rc1, xbc, p, q, RB0, RB1, RC0, RC1, XBC);
    // planes 0, -1, -2 (every cell has I <= 0 there): the faces -g2*t; the step before t = 1
    // reads plane 0 as X1, plane -1 as X2, plane -2 as X3
    T Xa[TJ][TK], Xb[TJ][TK], Xc[TJ][TK];
    T Ua[TK], Ub[TK], Uc[TK], La[TJ], Lb[TJ], Lc[TJ];
    T face1 = A::splat(0);                      // plane 0
    const T fm1 = A::add(face1, g2s), fm2 = A::add(fm1, g2s);
#pragma unroll
    for (int r = 0; r < TJ; ++r)
#pragma unroll
        for (int c = 0; c < TK; ++c) { Xa[r][c] = face1; Xb[r][c] = fm1; Xc[r][c] = fm2; }
#pragma unroll
    for (int c = 0; c < TK; ++c) { Ua[c] = face1; Ub[c] = fm1; Uc[c] = fm2; }   // Ua: refreshed in step 1
#pragma unroll
    for (int r = 0; r < TJ; ++r) { La[r] = face1; Lb[r] = fm1; Lc[r] = fm2; }
    T Ca = fm1, Cb = fm2, Cc = fm2;                                              // Ca: refreshed in step 1
    // selectors of the anti-diagonals for step 1 (sel[d] holds I = t - 2 - off - d with t = 0
    // before the shift at the top of a step)
    unsigned sel[TJ + TK - 1];
    int si = -2 - off + bias;                   // index of I for d = 0 at t = 0
#pragma unroll
    for (int d = 0; d < TJ + TK - 1; ++d) sel[d] = sels[si - d];
    unsigned next_sel = sels[++si];
    const bool top = p == 0, leftmost = q == 0;
    // step t uses (X1, X2, X3) = (a, b, c), (c, a, b), (b, c, a) for t = 1, 2, 3 mod 3 (the new
    // plane goes to X3); the halos (U1, U2, U3) rotate the same way (U1 refreshed), and the
    // corners (C2, C3) take the first two of the same rotation (C2 refreshed).
    int t = 1;
    for (; t <= fill; t += 3) {
        sloped_step<A, TJ, TK, Q, IM, true>(Xa, Xb, Xc, Ua, Ub, Uc, La, Lb, Lc, Ca, Cb, sel, next_sel, sels, si,
            RB0, RB1, RC0, RC1, XBC, face1, ng2, g2s, top, leftmost, one, t, off);
        sloped_step<A, TJ, TK, Q, IM, true>(Xc, Xa, Xb, Uc, Ua, Ub, Lc, La, Lb, Cc, Ca, sel, next_sel, sels, si,
            RB0, RB1, RC0, RC1, XBC, face1, ng2, g2s, top, leftmost, one, t + 1, off);
        sloped_step<A, TJ, TK, Q, IM, true>(Xb, Xc, Xa, Ub, Uc, Ua, Lb, Lc, La, Cb, Cc, sel, next_sel, sels, si,
            RB0, RB1, RC0, RC1, XBC, face1, ng2, g2s, top, leftmost, one, t + 2, off);
    }
    unsigned sum = 0;
    for (; t <= steps; t += 3) {
        sloped_step<A, TJ, TK, Q, IM, false>(Xa, Xb, Xc, Ua, Ub, Uc, La, Lb, Lc, Ca, Cb, sel, next_sel, sels, si,
            RB0, RB1, RC0, RC1, XBC, face1, ng2, g2s, top, leftmost, one, t, off);
        sloped_step<A, TJ, TK, Q, IM, false>(Xc, Xa, Xb, Uc, Ua, Ub, Lc, La, Lb, Cc, Ca, sel, next_sel, sels, si,
            RB0, RB1, RC0, RC1, XBC, face1, ng2, g2s, top, leftmost, one, t + 1, off);
        sloped_step<A, TJ, TK, Q, IM, false>(Xb, Xc, Xa, Ub, Uc, Ua, Lb, Lc, La, Cb, Cc, sel, next_sel, sels, si,
            RB0, RB1, RC0, RC1, XBC, face1, ng2, g2s, top, leftmost, one, t + 2, off);
    }
    // plane `steps` is in Xa, plane steps - 1 in Xb
    const long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * (2 * TJ * TK);
#pragma unroll
    for (int r = 0; r < TJ; ++r)
#pragma unroll
        for (int c = 0; c < TK; ++c) {
            out[base + r * TK + c] = Xa[r][c];
            out[base + TJ * TK + r * TK + c] = Xb[r][c];
            sum += (unsigned)Xa[r][c] * 3u + (unsigned)Xb[r][c] * 5u + (unsigned)Xc[r][c];
        }
    out_sum[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// ---- the layered tile, same scope, for a like-for-like comparison -------------------------
//
// The sweep of triplet_score.cu in its simplest form: lane (p, q) computes layer
// I = s - p - q at step s (its tile in place: the previous layer's terms from the
// bottom-right corner, then the wavefront of the current layer from the top-left), the
// halos of the current layer come from the neighbours' tiles (one step ahead of it), and
// x_ab / x_ac are taken per row / column with one PRMT each from the same profile words as
// above (the product kernel reads them from an A-residue profile in shared memory). Shifted
// values H' = H - g2*(I + J + K); the zero faces are H' = -g2*(I + J + K).
template <class A, int TJ, int TK, int Q, bool IM, bool FILL>
__device__ __forceinline__ void layered_step(
    typename A::T (&X)[TJ][TK], typename A::T (&Up)[TK], typename A::T (&Uc)[TK],
    typename A::T (&Lp)[TJ], typename A::T (&Lc)[TJ], typename A::T& Cp, typename A::T& Cc,
    unsigned& next_sel, const unsigned* __restrict__ sels, int& si,
    const unsigned (&RB0)[TJ], const unsigned (&RB1)[TJ], const unsigned (&RC0)[TK],
    const unsigned (&RC1)[TK], const typename A::T (&XBC)[TJ][TK],
    typename A::T& fI, typename A::T ng2, bool top, bool leftmost, int one, int s, int pq, int off) {
    typedef typename A::T T;
    const unsigned full = 0xffffffffu;
    // layer I - 1's halos are last step's layer I ones
#pragma unroll
    for (int c = 0; c < TK; ++c) Up[c] = Uc[c];
#pragma unroll
    for (int r = 0; r < TJ; ++r) Lp[r] = Lc[r];
    Cp = Cc;
#pragma unroll
    for (int c = 0; c < TK; ++c) Uc[c] = __shfl_up_sync(full, X[TJ - 1][c], Q);
#pragma unroll
    for (int r = 0; r < TJ; ++r) Lc[r] = __shfl_up_sync(full, X[r][TK - 1], 1);
    Cc = __shfl_up_sync(full, Lp[TJ - 1], Q);
    // faces of layer I: -g2*(I + J + K); fI = -g2*(I + off)
    if (top || leftmost) Cc = fI;
    if (top) {
#pragma unroll
        for (int c = 0; c < TK; ++c) Uc[c] = A::add(fI, (T)(ng2 * (unsigned)(c + 1)));
    }
    if (leftmost) {
#pragma unroll
        for (int r = 0; r < TJ; ++r) Lc[r] = A::add(fI, (T)(ng2 * (unsigned)(r + 1)));
    }
    const unsigned sel = next_sel;
    next_sel = __ldg(sels + (++si));
    T xab[TJ], xac[TK];
#pragma unroll
    for (int r = 0; r < TJ; ++r) xab[r] = (T)prmt_sx(RB0[r], RB1[r], sel);
#pragma unroll
    for (int c = 0; c < TK; ++c) xac[c] = (T)prmt_sx(RC0[c], RC1[c], sel);
    // previous layer's terms, in place from the bottom-right corner
#pragma unroll
    for (int rr = 0; rr < TJ; ++rr) {
        const int r = TJ - 1 - rr;
#pragma unroll
        for (int cc = 0; cc < TK; ++cc) {
            const int c = TK - 1 - cc;
            const T own = X[r][c];
            const Around<T, TJ, TK> n(X, Up, Lp, Cp, r, c);
            const T up = n.up, lf = n.lf, dg = n.dg;
            if constexpr (IM) {
                const T dx = A::addf(dg, xac[c], one);
                const T l = A::addf(lf, xac[c], one);
                const T m = A::addmax(dx, XBC[r][c], up);
                X[r][c] = A::max3(A::addf(m, xab[r], one), l, own);
            } else {
                const T d = A::add(dg, XBC[r][c]);
                const T l = A::addmax(lf, xac[c], own);
                const T m = A::addmax(d, xac[c], up);
                X[r][c] = A::addmax(m, xab[r], l);
            }
        }
    }
    // the current layer's wavefront from the top-left corner
#pragma unroll
    for (int r = 0; r < TJ; ++r)
#pragma unroll
        for (int c = 0; c < TK; ++c) {
            const Around<T, TJ, TK> n(X, Uc, Lc, Cc, r, c);
            X[r][c] = A::max3(A::addmax(n.dg, XBC[r][c], X[r][c]), n.up, n.lf);
        }
    if constexpr (FILL) {
        // layers I <= 0 hold layer 0: -g2*(J + K)
        if (s - pq <= 0) {
#pragma unroll
            for (int r = 0; r < TJ; ++r)
#pragma unroll
                for (int c = 0; c < TK; ++c) X[r][c] = (T)(ng2 * (unsigned)(off + r + c + 2));
        }
    }
    fI = A::add(fI, ng2);
}

// Arguments as sloped_kernel's; sels[i + bias] is A[I] for I = i; fill: steps with some lane
// at I <= 0 (P + Q - 2); out: the final tile (layer steps - p - q) twice.
template <class A, int TJ, int TK, int Q, bool IM, int MINB>
__global__ void __launch_bounds__(128, MINB) layered_kernel(
    const unsigned* __restrict__ rb0, const unsigned* __restrict__ rb1,
    const unsigned* __restrict__ rc0, const unsigned* __restrict__ rc1,
    const typename A::T* __restrict__ xbc, const unsigned* __restrict__ sels, int bias,
    typename A::T ng2, typename A::T g2s, int fill, int steps, int one,
    typename A::T* __restrict__ out, unsigned* __restrict__ out_sum) {
    typedef typename A::T T;
    (void)g2s;
    const int lane = threadIdx.x & 31, p = lane / Q, q = lane % Q;
    const int off = p * TJ + q * TK, pq = p + q;
    unsigned RB0[TJ], RB1[TJ], RC0[TK], RC1[TK];
    T XBC[TJ][TK];
    load_scores<A, TJ, TK, Q>(rb0, rb1, rc0, rc1, xbc, p, q, RB0, RB1, RC0, RC1, XBC);
    // layer 0 (I = s - pq = 0 before step 1 for lane 0): -g2*(J + K) everywhere
    T X[TJ][TK], Up[TK], Uc[TK], Lp[TJ], Lc[TJ];
#pragma unroll
    for (int r = 0; r < TJ; ++r)
#pragma unroll
        for (int c = 0; c < TK; ++c) X[r][c] = (T)(ng2 * (unsigned)(off + r + c + 2));
#pragma unroll
    for (int c = 0; c < TK; ++c) Uc[c] = (T)(ng2 * (unsigned)(off + c + 1));
#pragma unroll
    for (int r = 0; r < TJ; ++r) Lc[r] = (T)(ng2 * (unsigned)(off + r + 1));
    T Cc = (T)(ng2 * (unsigned)off), Cp = Cc;
    int si = -pq + bias;                        // I = s - pq for s = 1 is at si + 1
    unsigned next_sel = sels[++si];
    T fI = (T)(ng2 * (unsigned)(1 - pq + off)); // -g2*(I + off) for s = 1
    const bool top = p == 0, leftmost = q == 0;
    int s = 1;
    for (; s <= fill; ++s)
        layered_step<A, TJ, TK, Q, IM, true>(X, Up, Uc, Lp, Lc, Cp, Cc, next_sel, sels, si, RB0, RB1, RC0, RC1,
                                             XBC, fI, ng2, top, leftmost, one, s, pq, off);
    for (; s <= steps; ++s)
        layered_step<A, TJ, TK, Q, IM, false>(X, Up, Uc, Lp, Lc, Cp, Cc, next_sel, sels, si, RB0, RB1, RC0, RC1,
                                              XBC, fI, ng2, top, leftmost, one, s, pq, off);
    const long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * (2 * TJ * TK);
    unsigned sum = 0;
#pragma unroll
    for (int r = 0; r < TJ; ++r)
#pragma unroll
        for (int c = 0; c < TK; ++c) {
            out[base + r * TK + c] = X[r][c];
            out[base + TJ * TK + r * TK + c] = X[r][c];
            sum += (unsigned)X[r][c];
        }
    out_sum[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
