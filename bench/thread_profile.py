#!/usr/bin/env python3
# Where a multithreaded command waits (bench/notes/partitioner-passes.md, issue 30): runs the
# command, samples /proc/PID/task/* every DT seconds (state, CPU time, current system call and,
# as root with STACK=N, the first N frames of a waiting thread's kernel stack), timestamps its
# stderr lines, and prints per WIN-second window: cores busy, threads running, page faults, and
# the NTOP most common waits. Usage: [DT=0.05] [WIN=0.25] [STACK=4] [NTOP=4] python3 bench/thread_profile.py CMD ARGS...
# ("cores" is negative in a window where threads exit: their CPU time leaves the sum.)
import os, sys, time, subprocess, threading, collections
DT = float(os.environ.get("DT", "0.05"))
WIN = float(os.environ.get("WIN", "0.25"))
NTOP = int(os.environ.get("NTOP", "4"))
STACK = int(os.environ.get("STACK", "0"))
SYS = {0:"read",1:"write",17:"pread",18:"pwrite",74:"fsync",75:"fdatasync",277:"sync_range",202:"futex",
       9:"mmap",11:"munmap",28:"madvise",285:"fallocate",257:"openat",3:"close",87:"unlink",7:"poll",
       230:"nanosleep",35:"nanosleep",23:"select",61:"wait4",232:"epoll",281:"epoll",10:"mprotect",12:"brk",
       25:"mremap",319:"memfd",77:"ftruncate",76:"truncate",8:"lseek",4:"stat",5:"fstat",262:"fstatat",
       186:"gettid",20:"writev",19:"readv",295:"preadv",296:"pwritev",26:"msync",0x1b:"mincore"}
tck = os.sysconf("SC_CLK_TCK")
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE, text=True, errors="replace")
lines = []
def rd():
    for l in p.stderr:
        lines.append((time.monotonic() - t0, l.rstrip()))
th = threading.Thread(target=rd, daemon=True); th.start()
samples = []  # (t, cpu_total_s, nrun, Counter(waits))
while p.poll() is None:
    t = time.monotonic() - t0
    cpu = 0.0; nrun = 0; waits = collections.Counter()
    try:
        for tid in os.listdir(f"/proc/{p.pid}/task"):
            try:
                st = open(f"/proc/{p.pid}/task/{tid}/stat").read()
                f = st[st.rindex(")")+2:].split()
                state = f[0]; cpu += (int(f[11]) + int(f[12])) / tck
                if state == "R": nrun += 1; continue
                sc = open(f"/proc/{p.pid}/task/{tid}/syscall").read().split()
                if sc[0] == "running": nrun += 1; continue
                name = SYS.get(int(sc[0]), "sys" + sc[0]) if sc[0].lstrip("-").isdigit() else sc[0]
                where = ""
                if STACK:
                    try:
                        fr = [x.split()[-1].split("+")[0] for x in open(f"/proc/{p.pid}/task/{tid}/stack").read().split("\n") if x.strip()]
                        fr = [x for x in fr if not x.startswith(("__sched","schedule","io_schedule","rwsem_down","__x64_sys","do_syscall","entry_SYSCALL","x64_sys_call"))]
                        where = "@" + ">".join(fr[:STACK])
                    except (OSError, IndexError):
                        where = "@?"
                waits[state + ":" + name + where] += 1
            except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
                pass
    except FileNotFoundError:
        break
    try:
        f = open(f"/proc/{p.pid}/stat").read(); f = f[f.rindex(")")+2:].split()
        waits["~minflt"] = int(f[7]); waits["~majflt"] = int(f[9])
    except (OSError, IndexError):
        pass
    samples.append((t, cpu, nrun, waits))
    time.sleep(DT)
th.join(timeout=2)
wall = time.monotonic() - t0
print(f"rc {p.returncode} wall {wall:.2f} s")
for t, l in lines:
    print(f"[{t:7.2f}] {l}")
# windows
w0 = 0.0; i = 0; prev_cpu = 0.0; prev_t = 0.0
while i < len(samples):
    j = i; agg = collections.Counter(); runs = []
    flt0 = samples[i][3].get("~minflt", 0)
    while j < len(samples) and samples[j][0] < w0 + WIN:
        agg.update({k: v for k, v in samples[j][3].items() if not k.startswith("~")}); runs.append(samples[j][2]); j += 1
    if j > i:
        t, cpu = samples[j-1][0], samples[j-1][1]
        cores = (cpu - prev_cpu) / max(1e-9, t - prev_t)
        k = len(runs)
        flt = samples[j-1][3].get("~minflt", 0) - flt0
        top = f"faults {flt/1000:.0f}k | " + " ".join(f"{n}={c/k:.1f}" for n, c in agg.most_common(NTOP))
        print(f"{w0:6.2f}s cores {cores:5.1f} run {sum(runs)/k:5.1f} | {top}")
        prev_cpu, prev_t = cpu, t
    i = j; w0 += WIN
