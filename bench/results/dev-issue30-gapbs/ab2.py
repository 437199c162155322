import subprocess, time, resource, statistics, sys, os
env=dict(os.environ, LD_LIBRARY_PATH="/work/main/build-pack/dist")
cmds={"new":["/work/main/build/bin/tricount-partition","-i","k19.el","-o","n.h5","-q"],
      "base":["/work/main/build-pack/dist/tp-base","-i","k19.el","-o","b.h5","-q"],
      "gapbs":["/tmp/gapbs/converter","-f","k19.el","-s","-b","k19.sg"]}
W={k:[] for k in cmds}; C={k:[] for k in cmds}
for i in range(int(sys.argv[1])):
    for k,c in cmds.items():
        r0=resource.getrusage(resource.RUSAGE_CHILDREN); t=time.monotonic()
        subprocess.run(c,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL,env=env,check=True)
        W[k].append(time.monotonic()-t); r1=resource.getrusage(resource.RUSAGE_CHILDREN)
        C[k].append(r1.ru_utime-r0.ru_utime+r1.ru_stime-r0.ru_stime)
for k in cmds: print(k, "wall %.2f cpu %.2f"%(statistics.median(W[k]),statistics.median(C[k])), " ".join("%.2f"%x for x in W[k]))
print("ratio new %.2f base %.2f (wall)"%(statistics.median(W["new"])/statistics.median(W["gapbs"]),statistics.median(W["base"])/statistics.median(W["gapbs"])))
