#!/usr/bin/env python3
# Lists library files over 600 lines (run from the repository root; default folders: core bodies
# joints integrators apps) and top-level functions over 80 lines (brace depth,
# namespaces not counted); marks those with a "long:" reason comment in the 3 lines above.
import sys,re,glob
dirs=sys.argv[1:] or ['core','bodies','joints','integrators','apps']
files=[f for d in dirs for f in glob.glob(d+'/**/*.[ch]pp',recursive=True)]
for f in sorted(files):
    L=open(f).read().split('\n')
    if len(L)>600: print(f"FILE {f}: {len(L)} lines")
    depth=0; start=None; head=None
    for i,l in enumerate(L):
        code=re.sub(r'//.*','',l); code=re.sub(r'"(\\.|[^"\\])*"','""',code); code=re.sub(r"'(\\.|[^'\\])*'","''",code)
        if re.match(r'\s*namespace\b.*\{',code) or re.match(r'^\}\s*//\s*namespace',l): continue
        for ch in code:
            if ch=='{':
                if depth==0:
                    start=i
                    # find the declaration head: walk back to a line at col 0
                    j=i
                    while j>0 and (L[j].startswith(' ') or L[j].strip()=='' ) : j-=1
                    head=j
                depth+=1
            elif ch=='}':
                depth-=1
                if depth==0 and start is not None:
                    h=L[head]
                    ln=i-head+1
                    if ln>80 and '(' in ' '.join(L[head:start+1]) and not re.match(r'(struct|class|enum|const |static const|constexpr|inline const)',h):
                        prev=' '.join(L[max(0,head-4):head])
                        tag='  [reason given]' if 'long:' in prev else ''
                        print(f"FN {f}:{head+1} {ln} lines  {h[:80]}{tag}")
                    start=None
