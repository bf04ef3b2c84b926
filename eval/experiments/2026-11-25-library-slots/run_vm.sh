#!/usr/bin/env bash
# On the 2-core VM, one variant after another (n10k: .data/n10k, not in the repository).
E=eval/experiments/2026-11-25-library-slots
for v in "16 4" "16 1" "64 1" "32 2" "16 2"; do
  set -- $v
  python $E/slots.py .data/n10k/input.fa.gz .data/n10k/true.fa.gz --per-merge $1 --slots $2 2>&1 | grep -E "library|merges|SPFN"
done
