"""Timing proxies of kernel designs not built yet (GPU; scores of most variants are WRONG).

Each variant is a copy of this tree with a few text edits to the kernel and the
launcher (asserted to apply exactly once, so a changed kernel fails loudly
instead of timing something else). The copies run in child processes, one
after another, each timing the same batches as ``eval/bench_kernels.py``
(global / semiglobal, 16 / 32 bits); the table gives TCUPS per variant and
the ratio to ``main``. Use it to decide whether a redesign is worth building,
never as a result of the product: only ``main`` and the ``desync`` variants
compute correct scores.

Variants:

``main``
    this tree, unchanged.
``desync-w-D`` / ``desync-b-D``
    correct scores; half the warps of each scheduler start ``D`` cycles late
    (by hardware warp slot ``%warpid``, or the upper half of the blocks): do
    two warps on one scheduler run in phase, and does it matter?
``xsm-B``
    the staged kernels read ``x_bc`` (the B x C scores of the tile) from the
    thread's stage slot in shared memory at every step, twice (both phases of
    the tile, volatile loads so that they are not kept in registers), instead
    of holding it in 64 registers; tile in place; compiled for ``B`` blocks of
    128 threads per SM (``B = 3``: 168 registers, 3 warps per scheduler). The
    slot is single-buffered, so lagging threads read the next region's
    scores: wrong results, the right instruction stream.
``t16-28`` / ``t16-48`` (suffix ``i``: the 16-bit IMAD update in global mode too)
    ``xsm`` with 16 x 8 tiles: configurations (8,8,4,4) -> (16,8,2,4) and the
    multi-region one (8,8,4,8) -> (16,8,2,8) or (16,8,4,8), 255 registers.
``noface``
    the face buffers between regions cost nothing: the loads of the j- and k-faces
    take the thread's own halo of the previous layer instead, and the face stores
    are dropped (the split mode's flags are still published). What global-memory
    faces cost multi-region launches, so an upper bound on what distributed shared
    memory (thread-block clusters) could gain in their place.
``noload`` / ``nostore``
    ``noface`` for the loads only (the stores stay) / the stores only.
``weak`` / ``weakld``
    the face loads and stores (``weakld``: the loads only) as plain accesses, which L1
    may cache, instead of ``.cg`` (L2) ones. Right in stream launches (a group reads
    only what its own warp wrote), wrong in split launches (their k-faces come from
    other groups; timing only).
``l2face``
    every group keeps only two layers of face rows (row ``li & 1``): the same
    instructions and accesses, on a few MB that stay in L2 instead of hundreds of
    MB (wrong scores, timing only). What on-chip faces could gain.
``stageall``
    correct scores; every launch staged (``STAGE_LAYERS`` huge), as ``--stage-all``
    but as a column of its own, beside ``main`` in one run.
``--stage-all``
    every launch staged (``STAGE_LAYERS`` huge), so that the ``xsm`` / ``t16``
    proxies also apply to L >= 128 (for ``main`` too, so that the columns
    compare like with like; without it, L >= 128 runs unstaged and the
    proxies there equal main's instruction stream).

Session 11 measured the face variants (``noface`` ... ``stageall``) against the kernel of
eb6807f (``eval/experiments/kernels/results/faces-H100-2026-11-23-s11.md``).

Session 10 measured these against the kernel of 1694892
(``eval/experiments/kernels/results/proxy-H100-2026-11-23-s10.md``); the 32-bit tall tiles were then
built for real (x_bc from the A-residue profile, ``_gpu_plan.TALL``), and the edit
patterns here follow that kernel: ``t16`` now proxies the 16-bit launches only
(its 32-bit launches run the real tall kernel).

Usage::

    python eval/experiments/kernels/proxy_kernels.py --variants main,xsm-2,xsm-3,t16-48i --lengths 32,64 \\
        --out eval/experiments/kernels/results/proxy-<gpu>-<date>.md
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
KERNEL = "trimsa/kernels/triplet_score.cu"
PLAN = "trimsa/triplet/_gpu_plan.py"
LAUNCH = "trimsa/triplet/_gpu.py"


def _edit(root: Path, rel: str, pairs) -> None:
    path = root / rel
    text = path.read_text()
    for old, new in pairs:
        n = text.count(old)
        if n != 1:
            raise SystemExit(f"proxy_kernels: {rel}: expected one match of {old[:60]!r}, found {n}")
        text = text.replace(old, new)
    path.write_text(text)


SYNC = "    __syncthreads();\n"


def _desync(root: Path, how: str, cycles: int) -> None:
    late = {"w": "((wid >> 2) & 1) != 0", "b": "blockIdx.x >= gridDim.x / 2"}[how]
    _edit(root, KERNEL, [(SYNC, SYNC + (
        "    {\n"
        "        unsigned wid; asm volatile(\"mov.u32 %0, %%warpid;\" : \"=r\"(wid));\n"
        f"        if ({late}) {{ const long long t0 = clock64(); while (clock64() - t0 < {cycles}) {{ }} }}\n"
        "    }\n"))])


_PHASE1 = """                for (int rr = 0; rr < TJ; ++rr) {
#pragma unroll
                    for (int cc = 0; cc < TK; ++cc) {
                        // (loops counting down put the tile in local memory)
                        const int r = TJ - 1 - rr, c = TK - 1 - cc;"""
_PHASE2 = """                for (int r = 0; r < TJ; ++r) {
#pragma unroll
                    for (int c = 0; c < TK; ++c) {
                        T up_c, dg_c, lf_c;"""
_XROW = """            auto xrow = [&](int r, T (&xr)[TK]) {
                const unsigned a = (unsigned)__cvta_generic_to_shared(stage_s + threadIdx.x * (SWP / 4))
                                   + 4 * (TJ + TK + r * TK);
#pragma unroll
                for (int x = 0; x < TK / 4; ++x) {
                    unsigned w0, w1, w2, w3;
                    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                                 : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3) : "r"(a + 16 * x));
                    xr[4 * x] = (T)w0; xr[4 * x + 1] = (T)w1; xr[4 * x + 2] = (T)w2; xr[4 * x + 3] = (T)w3;
                }
            };
"""


def _xsm(root: Path, blocks: int) -> None:
    _edit(root, KERNEL, [
        ("    __shared__ int subN_s[32 * 64];", "    __shared__ int subN_s[8 * 64];"),
        ("    __shared__ int subT_s[32 * 64];", "    __shared__ int subT_s[8 * 64];"),
        ("    constexpr bool INPLACE = !(SHIFT && A::NH == 2) || (SHIFT && A::IMADD && STAGE);",
         "    constexpr bool XSM = STAGE;\n"
         "    constexpr bool INPLACE = XSM || !(SHIFT && A::NH == 2) || (SHIFT && A::IMADD && STAGE);"),
        ("            } else if constexpr (INPLACE) {\n                T lrow[TK];",
         "            } else if constexpr (INPLACE) {\n" + _XROW + "                T lrow[TK];"),
        (_PHASE1, _PHASE1.replace("#pragma unroll\n                    for (int cc = 0;",
                                  "                    T xr[TK];\n                    if constexpr (XSM) xrow(TJ - 1 - rr, xr);\n"
                                  "#pragma unroll\n                    for (int cc = 0;")
         + "\n                        const T xbc = XSM ? xr[c] : sbc2g[r][c];"),
        ("                            const T m = A::addmax(lrow[c], sbc2g[r][c], up_p);",
         "                            const T m = A::addmax(lrow[c], xbc, up_p);"),
        ("                            const T d = A::add(dg_p, sbc2g[r][c]);\n"
         "                            const T l = A::addmax(lf_p, sac2g[c], Hp[r][c]);",
         "                            const T d = A::add(dg_p, xbc);\n"
         "                            const T l = A::addmax(lf_p, sac2g[c], Hp[r][c]);"),
        (_PHASE2, _PHASE2.replace("#pragma unroll\n                    for (int c = 0;",
                                  "                    T xr[TK];\n                    if constexpr (XSM) xrow(r, xr);\n"
                                  "#pragma unroll\n                    for (int c = 0;")),
        ("                        const T y = A::max3(A::addmax(dg_c, sbc2g[r][c], Hp[r][c]), up_c, lf_c);",
         "                        const T y = A::max3(A::addmax(dg_c, XSM ? xr[c] : sbc2g[r][c], Hp[r][c]), up_c, lf_c);"),
    ])
    if blocks > 1:
        _edit(root, PLAN, [("MIN_BLOCKS: dict = {}",
                            "MIN_BLOCKS: dict = {(c, b): %d for c in ((8, 8, 4, 4), (8, 8, 4, 8)) for b in (16, 32)}"
                            % blocks)])


def _t16(root: Path, multi: str) -> None:
    # (the kernel takes 16 x 8 tiles since session 10; 32-bit launches of them read x_bc from
    # the profile for real, 16-bit ones through this proxy)
    _xsm(root, 1)
    m = {"28": "(16, 8, 2, 8)", "48": "(16, 8, 4, 8)"}[multi]
    _edit(root, PLAN, [
        ("(8, 8, 2, 4), (8, 8, 4, 4), (8, 8, 4, 8),\n           (8, 8, 4, 8))",
         f"(8, 8, 2, 4), (16, 8, 2, 4), {m},\n           {m})"),
        ("TILE_COST = {(4, 4): 1.6, (8, 8): 1.0}", "TILE_COST = {(4, 4): 1.6, (8, 8): 1.0, (16, 8): 1.0}"),
    ])


# the kernel's face loads (the first region row's corner from the k-face, the corner and the
# rest of the j-face row, the k-face column and, in the kernels that load the corner twice
# (KC2), the corner again), each with what ``noface`` puts in its place
_FACE_LOADS = (("(KC2 || q > 0) ? corner_left : (T)__ldcg(fk);", "(KC2 || q > 0) ? corner_left : Tp[0];"),
               ("if (!KC2) Tc[0] = (T)__ldcg((split && q == 0 && Kr > 0) ? fk : f);",
                "if (!KC2) Tc[0] = Tp[0];"),
               ("for (int c = KC2 ? 0 : 1; c <= TK; ++c) Tc[c] = (T)__ldcg(f + c);",
                "for (int c = KC2 ? 0 : 1; c <= TK; ++c) Tc[c] = Tp[c];"),
               ("for (int r = 0; r < TJ; ++r) Lc[r] = (T)__ldcg(f + 1 + r);",
                "for (int r = 0; r < TJ; ++r) Lc[r] = Lp[r];"),
               ("if (KC2 && p == 0) Tc[0] = (T)__ldcg(f);", "if (KC2 && p == 0) Tc[0] = Tp[0];"))


# every launch staged (``--stage-all``, ``stageall``)
_STAGE_ALL = ("STAGE_LAYERS = 96", "STAGE_LAYERS = 1 << 30")


def _edit_all(root: Path, old: str, new: str, count: int) -> None:
    """Every ``old`` in the kernel becomes ``new``; there must be exactly ``count`` of them."""
    path = root / KERNEL
    text = path.read_text()
    if text.count(old) != count:
        raise SystemExit(f"proxy_kernels: expected {count} matches of {old!r}, found {text.count(old)}")
    path.write_text(text.replace(old, new))


def _face_stores(root: Path, body: str) -> None:
    """The kernel's 4 face stores ``__stcg(p, v)`` become a function doing ``body``."""
    _edit_all(root, "__stcg(", "trimsa_face_store(", 4)
    _edit(root, KERNEL, [("#define TRIMSA_FULL 0xffffffffu\n",
                          "#define TRIMSA_FULL 0xffffffffu\n"
                          f"__device__ __forceinline__ void trimsa_face_store(unsigned int* p, unsigned int v) {{ {body} }}\n")])


def _noface(root: Path, loads: bool = True, stores: bool = True) -> None:
    if stores:
        _face_stores(root, "")
    if loads:
        _edit(root, KERNEL, list(_FACE_LOADS))


def _weak(root: Path, stores: bool) -> None:
    _edit(root, KERNEL, [(old, old.replace("__ldcg", "__ldca")) for old, _ in _FACE_LOADS])
    if stores:
        _face_stores(root, "__stwb(p, v);")


def _l2face(root: Path) -> None:
    _edit_all(root, "nlmax + li)", "nlmax + (li & 1))", 4)   # the 4 face row offsets


def make_tree(variant: str, dest: Path, stage_all: bool) -> Path:
    root = dest / variant
    shutil.copytree(ROOT / "trimsa", root / "trimsa", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "eval", root / "eval", ignore=shutil.ignore_patterns("__pycache__", "results", "experiments"))
    base = variant.rstrip("i") if variant.startswith("t16") else variant
    if variant != "main":
        m = re.fullmatch(r"desync-([wb])-(\d+)", variant)
        if m:
            _desync(root, m.group(1), int(m.group(2)))
        elif re.fullmatch(r"xsm-\d", variant):
            _xsm(root, int(variant[4:]))
        elif variant in ("noface", "noload", "nostore"):
            _noface(root, variant != "nostore", variant != "noload")
        elif variant == "l2face":
            _l2face(root)
        elif variant in ("weak", "weakld"):
            _weak(root, variant == "weak")
        elif variant == "stageall":
            _edit(root, LAUNCH, [_STAGE_ALL])
        elif base in ("t16-28", "t16-48"):
            _t16(root, base[4:])
        else:
            raise SystemExit(f"proxy_kernels: unknown variant {variant!r}")
    if variant.startswith("t16") and variant.endswith("i"):
        _edit(root, LAUNCH, [("and mode == 1 and ln.bits == 16)", "and mode in (0, 1) and ln.bits == 16)")])
    if stage_all:
        _edit(root, LAUNCH, [_STAGE_ALL])
    return root


def ratio_table(best: dict, rows, names, label: str) -> list[str]:
    """Markdown rows of ``best[(row..., name)]`` (TCUPS) per row ``(label value, mode, precision)``
    and column ``name``, with the ratio to the first column in brackets (``-`` where missing)."""
    lines = [f"| {label} | mode | precision | " + " | ".join(names) + " |", "|---|---|---|" + "---:|" * len(names)]
    for row in rows:
        base = best.get((*row, names[0]))
        cells = []
        for n in names:
            x = best.get((*row, n))
            cells.append("-" if x is None else f"{x:.3f}" + (f" ({x / base:.3f})" if base and n != names[0] else ""))
        lines.append(f"| {row[0]} | {row[1]} | {row[2]} | " + " | ".join(cells) + " |")
    return lines


def child(root: Path, lengths, modes, precs, cells: float) -> None:
    """Time the batches with the tree at ``root`` (run in a fresh process)."""
    sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location("bk", root / "eval" / "bench_kernels.py")
    bk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bk)
    import numpy as np

    rng = np.random.default_rng(7)
    sc = bk.Scoring.dna()
    for L in lengths:
        seqs, trip = bk.equal_lengths(rng, L, cells)
        for mode in modes:
            for prec in precs:
                batch = bk._gpu.Batch(seqs, trip, bk.MODES.index(mode), sc, prec)
                t = bk.time_batch(batch, 7)
                inf = batch.info[0]
                print(f"ROW\t{L}\t{mode}\t{prec}\t{trip.shape[0] * L ** 3 / t / 1e12:.4f}\t{inf['regs']}\t"
                      f"{inf['local_bytes']}\t{inf['blocks']}\t{inf['shape']}\t{int(inf.get('imad', 0))}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variants", default="main,xsm-2,xsm-3,t16-48i")
    ap.add_argument("--lengths", default="32,64")
    ap.add_argument("--modes", default="global,semiglobal")
    ap.add_argument("--precisions", default="int16,int32")
    ap.add_argument("--cells", type=float, default=3e10, help="cells per batch (as bench_kernels' --cells)")
    ap.add_argument("--passes", type=int, default=2, help="rounds over all variants (the table keeps the best)")
    ap.add_argument("--stage-all", action="store_true", help="stage every launch (proxies at L >= 128)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    lengths = [int(x) for x in args.lengths.split(",")]
    modes, precs = args.modes.split(","), args.precisions.split(",")
    if args.child:
        child(args.child, lengths, modes, precs, args.cells)
        return
    variants = args.variants.split(",")
    best: dict = {}
    info: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        roots = {v: make_tree(v, Path(tmp), args.stage_all) for v in variants}
        for p in range(args.passes):
            for v in variants:
                cmd = [sys.executable, str(roots[v] / "eval" / "proxy_kernels.py"), "--child", str(roots[v]),
                       "--lengths", args.lengths, "--modes", args.modes, "--precisions", args.precisions,
                       "--cells", str(args.cells)]
                out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
                if out.returncode:
                    sys.exit(f"proxy_kernels: variant {v} failed:\n{out.stderr[-3000:]}")
                for line in out.stdout.splitlines():
                    if line.startswith("ROW\t"):
                        _, L, mode, prec, tc, regs, lb, blocks, shape, imad = line.split("\t")
                        key = (int(L), mode, prec, v)
                        print(f"pass {p + 1} {v:14s} L={L:>4} {mode:10s} {prec} {float(tc):.3f} TCUPS", flush=True)
                        best[key] = max(best.get(key, 0.0), float(tc))
                        info[key] = f"{regs} regs, {lb} B local, {blocks} blocks, {shape}, imad {imad}"
    lines = ratio_table(best, [(L, m, pr) for L in lengths for m in modes for pr in precs], variants, "L")
    lines += ["", "Launch of each cell (registers, local bytes, blocks, configuration, 16-bit IMAD update):", ""]
    lines += [f"- {k[3]} L={k[0]} {k[1]} {k[2]}: {info[k]}" for k in sorted(info)]
    print("\n".join(lines))
    if args.out:
        gpu = "unknown GPU"
        try:
            import cupy

            gpu = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        except Exception:  # noqa: BLE001 - the header only
            pass
        head = (f"<!-- {gpu}, {datetime.date.today()}, {platform.node()}; command: python eval/experiments/kernels/proxy_kernels.py "
                f"{' '.join(argv if argv is not None else sys.argv[1:])}; best of {args.passes} passes; "
                f"ratios against the first column -->\n")
        args.out.write_text(head + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
