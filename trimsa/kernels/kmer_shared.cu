// Shared distinct k-mers of blocks of sequences: out[i * nc + j] = popcount of the AND of
// the bit sets of sequences rows[i] and cols[j] (trimsa.tree._cpu.kmer_shared on the CPU).
//
// bits: n x words 64-bit words, row-major. A thread group computes a TILE x TILE tile of the
// output; its threads are TILE wide and TILE / PER high, each computing PER rows of one
// column. The rows' and columns' bit sets pass through shared memory CHUNK words at a time
// (padded by one word against bank conflicts).

#define TILE 32
#define PER 4
#define CHUNK 32

template <typename T>
__device__ void shared_tile(const unsigned long long* __restrict__ bits, int words,
                            const long long* __restrict__ rows, int nr,
                            const long long* __restrict__ cols, int nc, T* __restrict__ out)
{
    __shared__ unsigned long long A[TILE][CHUNK + 1];
    __shared__ unsigned long long B[TILE][CHUNK + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
    const int tid = ty * TILE + tx, nthreads = TILE * (TILE / PER);
    unsigned int acc[PER];
    for (int k = 0; k < PER; ++k) acc[k] = 0;
    for (int w0 = 0; w0 < words; w0 += CHUNK) {
        for (int e = tid; e < TILE * CHUNK; e += nthreads) {
            const int r = e / CHUNK, w = e % CHUNK;
            const bool inw = w0 + w < words;
            A[r][w] = (inw && r0 + r < nr) ? bits[rows[r0 + r] * words + w0 + w] : 0ull;
            B[r][w] = (inw && c0 + r < nc) ? bits[cols[c0 + r] * words + w0 + w] : 0ull;
        }
        __syncthreads();
        for (int w = 0; w < CHUNK; ++w) {
            const unsigned long long b = B[tx][w];
            for (int k = 0; k < PER; ++k) acc[k] += __popcll(A[ty + k * (TILE / PER)][w] & b);
        }
        __syncthreads();
    }
    const int c = c0 + tx;
    if (c >= nc) return;
    for (int k = 0; k < PER; ++k) {
        const int r = r0 + ty + k * (TILE / PER);
        if (r < nr) out[(long long)r * nc + c] = (T)acc[k];
    }
}

extern "C" __global__ void kmer_shared_u16(const unsigned long long* bits, int words,
                                           const long long* rows, int nr,
                                           const long long* cols, int nc, unsigned short* out)
{
    shared_tile<unsigned short>(bits, words, rows, nr, cols, nc, out);
}

extern "C" __global__ void kmer_shared_i32(const unsigned long long* bits, int words,
                                           const long long* rows, int nr,
                                           const long long* cols, int nc, int* out)
{
    shared_tile<int>(bits, words, rows, nr, cols, nc, out);
}
