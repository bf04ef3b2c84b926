"""Random encoded sequence sets, for the GPU tests and the kernel benchmark."""

from __future__ import annotations

import numpy as np

from ..io import SequenceSet


def random_set(rng, lengths, alphabet, k: int | None = None) -> SequenceSet:
    """A :class:`SequenceSet` of uniform random codes ``0..k-1`` with the given lengths.

    ``k`` defaults to the four bases for DNA and the twenty amino acids otherwise.
    """
    k = k or (4 if alphabet.name == "dna" else 20)
    lengths = np.asarray(lengths, dtype=np.int64)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = rng.integers(0, k, size=int(offsets[-1]), dtype=np.uint8)
    names = tuple(f"s{i}" for i in range(lengths.size))
    return SequenceSet(names, names, tuple("" for _ in names), alphabet, codes, offsets)
