# cpu.py N "CMD ARGS" ...: runs each command N times, interleaved, and prints
# the median, mean and minimum user+system CPU of a run (the children's
# rusage). docs/performance.md, issue 26 point 5.
import os, sys, resource, subprocess, statistics
bins = sys.argv[2:]
n = int(sys.argv[1])
res = {b: [] for b in bins}
for i in range(n):
    for b in bins:
        args = b.split()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[b].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
for b in bins:
    v = res[b]
    print("%-40s median %.2f ms  mean %.2f ms  min %.2f ms" % (b, statistics.median(v), statistics.mean(v), min(v)))
