import sys, gzip
def parse(path):
    data=open(path,'rb').read()
    if data[:2]==b'\x1f\x8b': data=gzip.decompress(data)
    t=data.decode('utf-8','surrogateescape').replace('\r\n','\n').replace('\r','\n')
    recs=[]; 
    for line in t.split('\n'):
        if line.startswith('>'): recs.append([line[1:],''])
        elif recs: recs[-1][1]+=line.strip()
    return recs
inp, out = sys.argv[1], sys.argv[2]
I=parse(inp); O=parse(out)
probs=[]
if len(I)!=len(O): probs.append(f"nrec in {len(I)} out {len(O)}")
L={len(s) for _,s in O}
if len(L)>1: probs.append(f"row lengths differ {sorted(L)[:5]}")
for k,((hi,si),(ho,so)) in enumerate(zip(I,O)):
    if hi!=ho:
        if hi.split()[0:1]!=ho.split()[0:1]: probs.append(f"rec{k}: name {hi[:40]!r} -> {ho[:40]!r}")
        else: probs.append(f"rec{k}: header desc changed {hi[:40]!r}->{ho[:40]!r}")
    g=so.replace('-','')
    if g!=si:
        if g.upper()==si.upper(): probs.append(f"rec{k}: case changed")
        else: probs.append(f"rec{k}: residues differ: in {si[:30]!r}... out {g[:30]!r}...")
print("VALID" if not probs else "INVALID: "+"; ".join(probs[:6]))
