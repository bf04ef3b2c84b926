import random, gzip, os
random.seed(7)
D="/tmp/nu/inputs"
def rnd(n, al="ACGT"): return "".join(random.choice(al) for _ in range(n))
def mutate(s, sub=0.1, indel=0.02, al="ACGT"):
    out=[]
    for c in s:
        r=random.random()
        if r<indel/2: continue
        if r<indel: out.append(c); out.append(rnd(random.randint(1,3),al)); continue
        if random.random()<sub: out.append(random.choice(al))
        else: out.append(c)
    return "".join(out)
def w(name, recs, nl="\n", wrap=60):
    with open(os.path.join(D,name),"w",newline="") as f:
        for n,s in recs:
            f.write(">"+n+nl)
            for i in range(0,len(s),wrap): f.write(s[i:i+wrap]+nl)
root=rnd(120)
base=[("s%d"%i, mutate(root)) for i in range(6)]
w("base.fa", base)
w("lower.fa", [(n,s.lower() if i%2 else s) for i,(n,s) in enumerate(base)])
w("rna.fa", [(n,s.replace("T","U")) for n,s in base])
w("rna_lower.fa", [(n,s.replace("T","u").lower()) for n,s in base])
iu=[(n, s[:10]+"NRYSWKMBDHV"+s[10:]) for n,s in base]
w("iupac.fa", iu)
w("dashgap.fa", [(n, s[:20]+"--"+s[20:]) for n,s in base])
w("dotgap.fa", [(n, s[:20]+".."+s[20:]) for n,s in base])
w("star.fa", [(n, s+"*") for n,s in base])
w("crlf.fa", base, nl="\r\n")
with open(D+"/blank.fa","w") as f:
    f.write("\n\n")
    for n,s in base: f.write(">"+n+"\n"+s[:60]+"\n\n"+s[60:]+"\n\n")
with open(D+"/leadspace.fa","w") as f:
    for n,s in base: f.write(" >"+n+"\n  "+s+"\n")
with open(D+"/leadspace_seq.fa","w") as f:
    for n,s in base: f.write(">"+n+"\n  "+s+"\n")
w("longhdr.fa", [(n+" "+"x"*20000, s) for n,s in base])
w("longname.fa", [(n+"y"*5000, s) for n,s in base])
w("dup.fa", [("s0" if i<2 else n, s) for i,(n,s) in enumerate(base)])
w("spaces.fa", [(n+" desc with spaces", s) for n,s in base])
w("tabs.fa", [(n+"\tdesc\twith tabs", s) for n,s in base])
w("single.fa", base[:1]); w("two.fa", base[:2]); w("three.fa", base[:3])
w("ident.fa", [(n, base[0][1]) for n,_ in base])
w("ident3.fa", [(n, base[0][1]) for n,_ in base[:3]])
w("len1.fa", base[:3]+[("one","A")])
w("len1only.fa", [("a","A"),("b","C"),("c","A")])
with open(D+"/emptyrec.fa","w") as f:
    for n,s in base[:3]: f.write(">"+n+"\n"+s+"\n")
    f.write(">empty\n")
    for n,s in base[3:]: f.write(">"+n+"\n"+s+"\n")
open(D+"/empty.fa","w").close()
with open(D+"/noheader.fa","w") as f: f.write(base[0][1]+"\n")
import struct
open(D+"/img.png","wb").write(b"\x89PNG\r\n\x1a\n"+bytes(range(256))*4)
with open(D+"/phylip.phy","w") as f:
    f.write(" 6 %d\n"%len(base[0][1]))
    for n,s in base: f.write(n.ljust(10)+s+"\n")
with open(D+"/clustal.aln","w") as f:
    f.write("CLUSTAL W (1.83) multiple sequence alignment\n\n")
    for n,s in base: f.write(n.ljust(16)+s[:60]+"\n")
with gzip.open(D+"/base.fa.gz","wt") as f:
    for n,s in base: f.write(">"+n+"\n"+s+"\n")
prot_root=rnd(150,"ACDEFGHIKLMNPQRSTVWY")
prot=[("p%d"%i, mutate(prot_root,0.2,0.03,"ACDEFGHIKLMNPQRSTVWY")) for i in range(6)]
w("prot.fa", prot)
w("prot3.fa", prot[:3])
w("prot_star.fa", [(n,s+"*") for n,s in prot])
w("prot_lower.fa", [(n,s.lower()) for n,s in prot])
w("mix.fa", base[:3]+prot[:3])
# large
root=rnd(500)
big=[]
# tree-like: mutate from a few intermediate nodes
mids=[mutate(root,0.08,0.02) for _ in range(10)]
for i in range(200): big.append(("seq%03d"%i, mutate(random.choice(mids),0.06,0.02)))
w("n200.fa", big)
root=rnd(5000); mids=[mutate(root,0.05,0.01) for _ in range(3)]
w("l5k.fa", [("L%d"%i, mutate(random.choice(mids),0.05,0.01)) for i in range(10)])
root=rnd(20000); mids=[mutate(root,0.05,0.01) for _ in range(2)]
w("l20k.fa", [("X%d"%i, mutate(random.choice(mids),0.05,0.01)) for i in range(4)])
w("l20k3.fa", [("X%d"%i, mutate(root,0.05,0.01)) for i in range(3)])
w("l5k3.fa", [("Y%d"%i, mutate(root[:5000],0.05,0.01)) for i in range(3)])
