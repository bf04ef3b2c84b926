"""A brute-force reference for 3-way alignment under natural affine gap costs.

Everything here is deliberately slow and literal: an alignment is scored by
walking its columns pair by pair (:func:`natural_sp`), and an optimum is found
by enumerating *every* alignment of *every* admissible core box
(:func:`brute_force`). There is no dynamic programming anywhere, so the module
shares no idea (and no code) with the alignment kernels it is meant to check.

Conventions
-----------
* A sequence is a list (or 1-D array) of integer residue codes ``>= 0``.
* A row of an alignment is a list of codes where ``GAP = -1`` marks a gap.
* An alignment of sequences ``a, b, c`` is a tuple of *moves*, one per
  column; a move is a 3-bit mask in ``1..7``: bit 0 set when row 0 has a
  residue in that column, bit 1 for row 1, bit 2 for row 2. A column without
  any residue (mask 0) does not exist.
* ``table[x][y]`` is the substitution score of residues ``x`` and ``y``
  (a square numpy array or nested lists of integers).

Score
-----
The score is the natural-affine sum of pairs; see :func:`natural_sp`. With
``gap_open = 0`` it is the usual linear-gap sum of pairs. The project's
contract is ``gap_open <= 0`` and ``gap_extend <= 0``; the reference computes
the literal definition for any integers.

Modes
-----
``"global"``
    The alignment covers all residues of the three sequences.
``"semiglobal"`` (end gaps free)
    A *core box* from ``start = (i0, j0, k0)`` to ``end = (i1, j1, k1)``
    (``start <= end`` componentwise) is aligned globally and scored alone;
    residues outside the box are not scored at all. At least one of
    ``i0, j0, k0`` is 0 and at least one of ``i1 == len(a)``,
    ``j1 == len(b)``, ``k1 == len(c)`` holds. An empty core
    (``start == end``, allowed when that cell meets both conditions) scores 0.
``"local"``
    As semiglobal with any ``start <= end`` (no conditions on the faces);
    an empty core scores 0.

Faces (``faces="fixed"``, the engine's rule, docs/engine.md)
    In the semiglobal and local modes the engine holds a fresh start of
    score 0 in every cell of the near faces ``i = 0``, ``j = 0``, ``k = 0``,
    so a core may start on a face but never come back to one: every cell its
    path reaches after the start has ``i, j, k >= 1``. ``faces="free"`` drops
    that rule (any box of the mode). The two agree whenever no column that
    can lie on a face scores above 0 under extension
    (``max(table) + 2 * gap_extend <= 0``).

Size limits
-----------
The number of global alignments of lengths ``(l, m, n)`` is the 3-D Delannoy
number ``D(l, m, n)``: ``D(1, 1, 1) = 13``, ``D(2, 2, 2) = 409``,
``D(3, 3, 3) = 16081`` (and ``D(4, 4, 4) = 699121``, out of reach here).
Each alignment is scored in pure Python, so this is meant for

* ``"global"``: lengths up to 3 each; ``(3, 3, 3)`` scores 16081 alignments
  in about 0.4 s;
* ``"semiglobal"`` and ``"local"``: every core box is enumerated, so lengths
  of about ``(3, 2, 2)``: 255 semiglobal boxes with 5827 alignments, or 360
  local boxes with 6116 alignments, about 0.1 s each. ``(3, 3, 3)`` still
  works but is slow (595 / 1000 boxes, 80431 / 84388 alignments, 1.3 to
  1.6 s).

Examples
--------
>>> import numpy as np
>>> table = np.where(np.eye(4, dtype=bool), 1, -1)   # A C G T, match 1, mismatch -1
>>> rows = rows_to_codes(["AC-G", "A-TG", "ACTG"], "ACGT")
>>> natural_sp(rows, table, gap_open=-3, gap_extend=-1)
-8
>>> sum(1 for _ in all_alignments(1, 1, 1))
13
>>> best, optima = brute_force([0, 1], [0, 1], [3, 0, 1], table, -3, -1, "semiglobal")
>>> best, list(optima), optima.total
(6, [((0, 0, 1), (2, 2, 3), (7, 7))], 1)
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

GAP = -1
MODES = ("global", "semiglobal", "local")
MAX_KEPT = 1000

#: The three pairs of rows, each scored on its own projection.
PAIRS = ((0, 1), (0, 2), (1, 2))


# --------------------------------------------------------------------------
# Small input helpers
# --------------------------------------------------------------------------

def _as_table(table) -> list[list[int]]:
    """The substitution table as nested lists of Python ints."""
    arr = np.asarray(table)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"table must be a square 2-D table, got shape {arr.shape}")
    if not np.all(arr == np.round(arr)):
        raise ValueError("table entries must be integers")
    return [[int(v) for v in row] for row in arr.tolist()]


def _as_int(value, name: str) -> int:
    """An integral score as a Python int (rejects 2.5, accepts 2.0 and np.int32)."""
    as_int = int(value)
    if as_int != value:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return as_int


def _as_codes(seq, name: str) -> list[int]:
    """A sequence of residue codes (no gaps) as a list of Python ints."""
    codes = [int(x) for x in seq]
    if any(x < 0 for x in codes):
        raise ValueError(f"{name} holds a negative code; sequences have no gaps")
    return codes


def rows_to_codes(rows: Sequence[str], alphabet: str | Mapping[str, int]) -> list[list[int]]:
    """Turn alignment rows written as strings into rows of integer codes.

    Parameters
    ----------
    rows : sequence of str
        The rows, ``'-'`` for a gap.
    alphabet : str or mapping
        Either a string whose ``i``-th character has code ``i`` (``"ACGT"``)
        or an explicit mapping from character to code.

    Returns
    -------
    list of list of int
        One list per row, :data:`GAP` (``-1``) for each ``'-'``.

    Examples
    --------
    >>> rows_to_codes(["A-C", "GT-"], "ACGT")
    [[0, -1, 1], [2, 3, -1]]
    """
    if isinstance(alphabet, str):
        alphabet = {ch: i for i, ch in enumerate(alphabet)}
    return [[GAP if ch == "-" else alphabet[ch] for ch in row] for row in rows]


# --------------------------------------------------------------------------
# The score of one alignment
# --------------------------------------------------------------------------

def _pair_score(top: list[int], bottom: list[int], table: list[list[int]],
                gap_open: int, gap_extend: int) -> int:
    """Natural-affine score of two rows (columns with two gaps already kept or not).

    Columns where both rows are gaps are skipped first, which is exactly the
    projection of the pair. Then one walk over the projection: ``in_gap`` is
    the row (0 = top, 1 = bottom) whose gap run the previous column belongs to,
    or ``None`` after a residue-residue column. A gap column opens a new run
    whenever it is not in the same row as the previous gap column.
    """
    projection = [(x, y) for x, y in zip(top, bottom) if not (x == GAP and y == GAP)]
    score = 0
    in_gap = None
    for x, y in projection:
        if x != GAP and y != GAP:
            score += table[x][y]
            in_gap = None
            continue
        gap_row = 0 if x == GAP else 1
        if gap_row != in_gap:
            score += gap_open          # a new maximal run starts here
        score += gap_extend            # every gap column of a run
        in_gap = gap_row
    return score


def natural_sp(rows: Sequence[Sequence[int]], table, gap_open: int, gap_extend: int) -> int:
    """Sum-of-pairs score of a 3-row alignment under natural affine gap costs.

    Parameters
    ----------
    rows : sequence of 3 sequences of int
        The three rows, of equal length; ``-1`` is a gap, other codes index
        ``table``. No column may consist of three gaps.
    table : array_like of int, shape (n, n)
        Substitution scores, ``table[x][y]``.
    gap_open : int
        Added once for every maximal gap run (``<= 0`` by the project's
        contract; 0 means linear gaps).
    gap_extend : int
        Added for every gap position of a run (``<= 0``).

    Returns
    -------
    int
        The sum over the pairs (0, 1), (0, 2), (1, 2) of the pair's score.
        A pair is scored on its projection, i.e. with the columns where both
        of its rows are gaps removed: each residue-residue column adds
        ``table[x][y]`` and each maximal run of consecutive columns in which
        the same row of the pair has a gap adds
        ``gap_open + gap_extend * run_length``. A run of gaps in one row
        directly followed by a run in the other row counts as two runs.

    Raises
    ------
    ValueError
        If there are not 3 rows, they differ in length, a column is all gaps,
        or a code is below -1.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.where(np.eye(4, dtype=bool), 1, -1)
    >>> natural_sp([[0, 1], [0, -1], [0, 1]], table, -3, -1)   # AC / A- / AC
    -4
    """
    if len(rows) != 3:
        raise ValueError(f"expected 3 rows, got {len(rows)}")
    rows = [[int(x) for x in row] for row in rows]
    if len({len(row) for row in rows}) != 1:
        raise ValueError(f"rows differ in length: {[len(row) for row in rows]}")
    for col, column in enumerate(zip(*rows)):
        if any(x < GAP for x in column):
            raise ValueError(f"column {col} holds a code below -1: {column}")
        if all(x == GAP for x in column):
            raise ValueError(f"column {col} is all gaps")
    table = _as_table(table) if not _is_int_lists(table) else table
    gap_open = _as_int(gap_open, "gap_open")
    gap_extend = _as_int(gap_extend, "gap_extend")
    return sum(_pair_score(rows[p], rows[q], table, gap_open, gap_extend) for p, q in PAIRS)


def _is_int_lists(table) -> bool:
    """True when ``table`` is already nested lists of Python ints (skip conversion)."""
    return (isinstance(table, list) and all(isinstance(row, list) for row in table)
            and all(type(v) is int for row in table for v in row))


# --------------------------------------------------------------------------
# Enumeration of alignments
# --------------------------------------------------------------------------

def _steps(move: int) -> tuple[int, int, int]:
    """How many residues of each row a move consumes (its three bits)."""
    return (move & 1, (move >> 1) & 1, (move >> 2) & 1)


def all_alignments(la: int, lb: int, lc: int) -> Iterator[tuple[int, ...]]:
    """Every global alignment of three sequences of lengths ``la, lb, lc``.

    Plain recursion: from the remaining lengths, try each of the seven moves
    that does not consume more residues than remain, and recurse on the rest.
    Every alignment is produced exactly once, because two different move
    tuples are two different alignments (they differ in some column).

    Parameters
    ----------
    la, lb, lc : int
        Lengths of the three sequences (``>= 0``).

    Yields
    ------
    tuple of int
        The moves of one alignment, each in ``1..7`` (bit 0: row 0 has a
        residue in the column, bit 1: row 1, bit 2: row 2). Three empty
        sequences have one alignment, the empty tuple.

    Notes
    -----
    The count is the 3-D Delannoy number: 13 for ``(1, 1, 1)``, 409 for
    ``(2, 2, 2)``, 16081 for ``(3, 3, 3)``.

    Examples
    --------
    >>> list(all_alignments(1, 1, 0))
    [(1, 2), (2, 1), (3,)]
    """
    if min(la, lb, lc) < 0:
        raise ValueError(f"negative length in {(la, lb, lc)}")
    yield from _extend((la, lb, lc), ())


def _extend(remaining: tuple[int, int, int], prefix: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    if remaining == (0, 0, 0):
        yield prefix
        return
    for move in range(1, 8):
        step = _steps(move)
        if all(s <= r for s, r in zip(step, remaining)):
            rest = tuple(r - s for r, s in zip(remaining, step))
            yield from _extend(rest, prefix + (move,))


@functools.lru_cache(maxsize=None)
def _alignments_of(la: int, lb: int, lc: int) -> tuple[tuple[int, ...], ...]:
    """:func:`all_alignments` materialised once per length triple."""
    return tuple(all_alignments(la, lb, lc))


def rows_from_moves(a: Sequence[int], b: Sequence[int], c: Sequence[int],
                    moves: Sequence[int]) -> list[list[int]]:
    """The three rows of the alignment of ``a, b, c`` given by ``moves``.

    Parameters
    ----------
    a, b, c : sequence of int
        Residue codes of the three sequences.
    moves : sequence of int
        One move (``1..7``) per column, as from :func:`all_alignments`.

    Returns
    -------
    list of 3 lists of int
        The rows, ``-1`` for a gap.

    Raises
    ------
    ValueError
        If a move is outside ``1..7`` or the moves do not consume every
        residue of the three sequences exactly.

    Examples
    --------
    >>> rows_from_moves([5], [6, 7], [], (3, 2))
    [[5, -1], [6, 7], [-1, -1]]
    """
    seqs = (list(a), list(b), list(c))
    rows: list[list[int]] = [[], [], []]
    used = [0, 0, 0]
    for move in moves:
        if not 1 <= move <= 7:
            raise ValueError(f"move {move!r} is not in 1..7")
        for r, s in enumerate(_steps(move)):
            if s:
                if used[r] >= len(seqs[r]):
                    raise ValueError(f"the moves consume more than the {len(seqs[r])} "
                                     f"residues of row {r}")
                rows[r].append(int(seqs[r][used[r]]))
                used[r] += 1
            else:
                rows[r].append(GAP)
    if used != [len(s) for s in seqs]:
        raise ValueError(f"the moves consume {used} residues, the sequences have "
                         f"{[len(s) for s in seqs]}")
    return rows


# --------------------------------------------------------------------------
# Brute-force optimum
# --------------------------------------------------------------------------

class Optima(list):
    """The optimal ``(start, end, moves)`` triples kept, plus their total count.

    A plain list (at most ``max_kept`` items, in enumeration order) with one
    extra attribute, ``total``: how many optimal triples exist in all.
    """

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    @property
    def truncated(self) -> bool:
        """True when fewer triples were kept than exist."""
        return self.total > len(self)


def core_boxes(la: int, lb: int, lc: int, mode: str
               ) -> Iterator[tuple[tuple[int, int, int], tuple[int, int, int]]]:
    """Every admissible core box ``(start, end)`` of a mode.

    Parameters
    ----------
    la, lb, lc : int
        Lengths of the three sequences.
    mode : {"global", "semiglobal", "local"}
        See the module docstring.

    Yields
    ------
    tuple
        ``(start, end)``, each a triple of cell coordinates with
        ``start <= end`` componentwise.

    Examples
    --------
    >>> list(core_boxes(1, 0, 0, "semiglobal"))
    [((0, 0, 0), (0, 0, 0)), ((0, 0, 0), (1, 0, 0)), ((1, 0, 0), (1, 0, 0))]
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if mode == "global":
        yield (0, 0, 0), (la, lb, lc)
        return
    for start in itertools.product(range(la + 1), range(lb + 1), range(lc + 1)):
        if mode == "semiglobal" and 0 not in start:
            continue
        i0, j0, k0 = start
        for end in itertools.product(range(i0, la + 1), range(j0, lb + 1), range(k0, lc + 1)):
            i1, j1, k1 = end
            if mode == "semiglobal" and not (i1 == la or j1 == lb or k1 == lc):
                continue
            yield start, end


def _returns_to_face(start, moves) -> bool:
    """Whether a path from ``start`` reaches a cell with a zero coordinate after its start."""
    cell = list(start)
    for m in moves:
        for r in range(3):
            cell[r] += (m >> r) & 1
        if 0 in cell:
            return True
    return False


def brute_force(a: Sequence[int], b: Sequence[int], c: Sequence[int], table,
                gap_open: int, gap_extend: int, mode: str, *,
                max_kept: int = MAX_KEPT, faces: str = "fixed") -> tuple[int, Optima]:
    """Best natural-affine SP score of a mode, by enumerating everything.

    Every admissible core box of ``mode`` (:func:`core_boxes`) and every
    global alignment of the core (:func:`all_alignments`) is scored with
    :func:`natural_sp`; residues outside the core are not scored.

    Parameters
    ----------
    a, b, c : sequence of int
        Residue codes (``>= 0``) of the three sequences. Tiny only: see the
        module docstring for the sizes that finish in reasonable time.
    table : array_like of int, shape (n, n)
        Substitution scores.
    gap_open, gap_extend : int
        Natural affine gap costs (``gap_open = 0``: linear gaps).
    mode : {"global", "semiglobal", "local"}
        Which core boxes are admissible.
    max_kept : int, optional
        Keep at most this many optimal triples (default 1000); the total
        count is always exact.
    faces : {"fixed", "free"}
        Whether a semiglobal or local core may return to a near face after
        its start (see the module docstring).

    Returns
    -------
    best : int
        The optimal score (0 or more in the semiglobal and local modes,
        where an empty core is always admissible).
    optima : Optima
        The optimal ``(start, end, moves)`` triples, at most ``max_kept`` of
        them in enumeration order (boxes by start then end, lexicographic;
        alignments in :func:`all_alignments` order); ``optima.total`` is how
        many there are in all.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.where(np.eye(4, dtype=bool), 1, -1)
    >>> best, optima = brute_force([0], [0], [1], table, 0, -1, "global")
    >>> best, list(optima)
    (-1, [((0, 0, 0), (1, 1, 1), (7,))])
    """
    a = _as_codes(a, "a")
    b = _as_codes(b, "b")
    c = _as_codes(c, "c")
    table = _as_table(table)
    gap_open = _as_int(gap_open, "gap_open")
    gap_extend = _as_int(gap_extend, "gap_extend")
    for seq in (a, b, c):
        if seq and max(seq) >= len(table):
            raise ValueError(f"code {max(seq)} is outside the {len(table)}x{len(table)} table")

    if faces not in ("fixed", "free"):
        raise ValueError(f"faces must be 'fixed' or 'free', got {faces!r}")
    best = None
    optima = Optima()
    for start, end in core_boxes(len(a), len(b), len(c), mode):
        (i0, j0, k0), (i1, j1, k1) = start, end
        core = a[i0:i1], b[j0:j1], c[k0:k1]
        for moves in _alignments_of(i1 - i0, j1 - j0, k1 - k0):
            if faces == "fixed" and mode != "global" and _returns_to_face(start, moves):
                continue
            rows = rows_from_moves(*core, moves)
            score = natural_sp(rows, table, gap_open, gap_extend)   # empty core: 0
            if best is None or score > best:
                best = score
                optima = Optima()
            if score == best:
                optima.total += 1
                if len(optima) < max_kept:
                    optima.append((start, end, moves))
    return best, optima


def slow_dp(a: Sequence[int], b: Sequence[int], c: Sequence[int], table,
            gap_open: int, gap_extend: int, mode: str, allowed=None) -> int:
    """The optimum of :func:`brute_force` (``faces="fixed"``) by a literal dynamic programme.

    For inputs too long to enumerate. Each cell keeps a dictionary from the
    kinds of the three pairs' last non-null columns (0 two residues, 1 the
    pair's first row has the residue, 2 the second) to the best score of a
    path reaching the cell with those kinds; a move costs what
    :func:`natural_sp` charges for the column, given the kinds. Written from
    the definition, with no shared code or state numbering with the engine.

    ``allowed(i, j, k)`` (global mode): only paths whose every cell it accepts
    count (a band); None when no such path exists.
    """
    if allowed is not None and mode != "global":
        raise ValueError("allowed cells apply to the global mode")
    table = _as_table(table)
    seqs = (_as_codes(a, "a"), _as_codes(b, "b"), _as_codes(c, "c"))
    la, lb, lc = (len(s) for s in seqs)
    fresh = (0, 0, 0)
    cells: dict = {}
    best = None
    for i, j, k in itertools.product(range(la + 1), range(lb + 1), range(lc + 1)):
        here: dict = {}
        on_face = 0 in (i, j, k)
        if allowed is not None and not allowed(i, j, k):
            pass
        elif mode != "global" and on_face or (i, j, k) == (0, 0, 0):
            here[fresh] = 0
        else:
            for m in range(1, 8):
                step = _steps(m)
                prev = (i - step[0], j - step[1], k - step[2])
                if min(prev) < 0:
                    continue
                res = [seqs[r][prev[r]] if step[r] else GAP for r in range(3)]
                for kinds, value in cells.get(prev, {}).items():
                    new = list(kinds)
                    for p, (r1, r2) in enumerate(PAIRS):
                        if step[r1] and step[r2]:
                            value += table[res[r1]][res[r2]]
                            new[p] = 0
                        elif step[r1] or step[r2]:
                            kind = 1 if step[r1] else 2
                            value += gap_extend + (gap_open if kinds[p] != kind else 0)
                            new[p] = kind
                    new = tuple(new)
                    if value > here.get(new, value - 1):
                        here[new] = value
            if mode == "local":
                here[fresh] = max(here.get(fresh, 0), 0)
        cells[(i, j, k)] = here
        read = (mode == "local" or (i, j, k) == (la, lb, lc)
                or (mode == "semiglobal" and (i == la or j == lb or k == lc)))
        if read and here and (best is None or max(here.values()) > best):
            best = max(here.values())
    return best
