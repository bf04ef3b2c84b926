# A/B on the 2-core VM: the commit before the queue (a worktree at /tmp/oldwt) against the working tree.
cd /work/main
for i in 1 2; do
  for tree in /tmp/oldwt /work/main; do
    (cd $tree && python -m trimsa run /work/main/.data/n10k/input.fa.gz -o /tmp/ab_$(basename $tree).fa -v --threads 2 -q 2>&1 | grep -E "merges:|library:" | sed "s|^|$(basename $tree) |")
  done
done
cmp /tmp/ab_oldwt.fa /tmp/ab_main.fa && echo "same alignment"
