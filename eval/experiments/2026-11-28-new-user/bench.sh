source /tmp/nu/venv/bin/activate
cd /tmp/nu/inputs
for f in n200 l5k l20k; do
  for tool in trimsa mafft; do
    if [ $tool = trimsa ]; then cmd="trimsa run -q $f.fa -o /tmp/nu/out/big_${f}_trimsa.fa"; else cmd="mafft --auto --quiet $f.fa"; fi
    if [ $tool = trimsa ]; then timeout 900 /usr/bin/time -v $cmd 2> /tmp/nu/out/time_${f}_$tool.txt; rc=$?
    else timeout 900 /usr/bin/time -v $cmd > /tmp/nu/out/big_${f}_mafft.fa 2> /tmp/nu/out/time_${f}_$tool.txt; rc=$?; fi
    w=$(grep "Elapsed (wall" /tmp/nu/out/time_${f}_$tool.txt | awk '{print $NF}'); m=$(grep "Maximum resident" /tmp/nu/out/time_${f}_$tool.txt | awk '{print $NF}')
    v=$(python /tmp/nu/check.py $f.fa /tmp/nu/out/big_${f}_$tool.fa 2>&1 | head -c 200)
    echo "$f $tool rc=$rc wall=$w maxrss_kb=$m $v"
  done
done
