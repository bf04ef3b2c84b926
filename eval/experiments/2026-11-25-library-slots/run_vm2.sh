#!/usr/bin/env bash
# Second batch on the 2-core VM, after run_vm.sh.
E=eval/experiments/2026-11-25-library-slots
for v in "128 1" "128 2"; do
  set -- $v
  python $E/slots.py .data/n10k/input.fa.gz .data/n10k/true.fa.gz --per-merge $1 --slots $2 2>&1 | grep -E "library|merges|SPFN"
done
