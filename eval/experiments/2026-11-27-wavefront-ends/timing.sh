#!/usr/bin/env bash
# align3 of three 1,000-residue sequences in semiglobal mode on the CPU: this tree with
# 1 and 2 threads, and the code before (24aba44's trimsa/, copied to .data/base7) with 2;
# each after a warm-up run (numba's cache filled); the alignments compared.
F=.data/align3/t1000.fa
trimsa align3 $F --mode semiglobal --threads 2 -o /tmp/warm.aln 2>/dev/null
for t in 1 2; do
  /usr/bin/time -f "this tree, --threads $t: %e s" trimsa align3 $F --mode semiglobal --threads $t -o /tmp/sg_$t.aln
done
(cd /tmp && PYTHONPATH=$OLDPWD/.data/base7 python -m trimsa align3 $OLDPWD/$F --mode semiglobal --threads 2 -o /tmp/sg_base.aln 2>/dev/null)
(cd /tmp && PYTHONPATH=$OLDPWD/.data/base7 /usr/bin/time -f "24aba44, --threads 2: %e s" python -m trimsa align3 $OLDPWD/$F --mode semiglobal --threads 2 -o /tmp/sg_base.aln)
cmp /tmp/sg_1.aln /tmp/sg_2.aln && cmp /tmp/sg_2.aln /tmp/sg_base.aln && echo "the same alignment"
