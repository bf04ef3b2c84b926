"""Tiny SP scorer for development (FastSP definitions: SPFN, SPFP, TC).

Used only until ``trimsa.evaluate`` lands; not part of the package.
``python eval/spscore.py TRUE.fa EST.fa`` prints ``spfn spfp tc``.
"""

from __future__ import annotations

import gzip
import sys

import numpy as np


def read_fasta(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    names, seqs, cur = [], [], []
    with opener(path, "rt") as fh:
        for line in fh:
            line = line.strip()
            if line.startswith(">"):
                if names:
                    seqs.append("".join(cur))
                names.append(line[1:].split()[0])
                cur = []
            elif line:
                cur.append(line)
    seqs.append("".join(cur))
    return names, seqs


def _columns(rows):
    """For each row: the column index of each residue, and per-column residue counts."""
    cols = []
    ncol = len(rows[0])
    for r in rows:
        a = np.frombuffer(r.encode(), dtype=np.uint8)
        cols.append(np.flatnonzero(a != ord("-")))
    return cols, ncol


def sp_compare(true_rows, est_rows):
    """SPFN, SPFP, TC of ``est_rows`` against ``true_rows`` (same order)."""
    tc, tn = _columns(true_rows)
    ec, en = _columns(est_rows)
    t_all = np.concatenate(tc).astype(np.int64)
    e_all = np.concatenate(ec).astype(np.int64)
    if t_all.size != e_all.size:
        raise ValueError("residue counts differ")

    def pairs(counts):
        c = counts.astype(np.int64)
        return int((c * (c - 1) // 2).sum())

    true_pairs = pairs(np.bincount(t_all, minlength=tn))
    est_pairs = pairs(np.bincount(e_all, minlength=en))
    key = t_all * (en + 1) + e_all
    _, cnt = np.unique(key, return_counts=True)
    shared = pairs(cnt)
    spfn = 1 - shared / true_pairs if true_pairs else 0.0
    spfp = 1 - shared / est_pairs if est_pairs else 0.0
    # TC: true columns (with >= 2 residues) reproduced exactly as an estimated column
    tcount = np.bincount(t_all, minlength=tn)
    u, c = np.unique(key, return_counts=True)
    tcol = u // (en + 1)
    full = (c == tcount[tcol]) & (tcount[tcol] >= 2)
    multi = (tcount >= 2).sum()
    tcv = full.sum() / multi if multi else 1.0
    return spfn, spfp, float(tcv)


def compare_files(true_path, est_path):
    tn, ts = read_fasta(true_path)
    en, es = read_fasta(est_path)
    idx = {n: i for i, n in enumerate(en)}
    es = [es[idx[n]].upper() for n in tn]
    ts = [s.upper() for s in ts]
    return sp_compare(ts, es)


if __name__ == "__main__":
    print("%.4f %.4f %.4f" % compare_files(sys.argv[1], sys.argv[2]))
