"""Peak PSS of a process tree: the sum over ROOT and its descendants of /proc/PID/smaps_rollup's Pss, sampled every
0.2 s until ROOT exits; prints the highest sum in KiB (GNU time only sees the largest single process).

    python3 bench/tree_pss.py ROOT_PID
"""
import os, sys, time
root, peak = int(sys.argv[1]), 0
def pss(pid):
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"): return int(line.split()[1])
    except OSError: pass
    return 0
while os.path.exists(f"/proc/{root}"):
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try: ppid = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError): continue
            children.setdefault(ppid, []).append(int(d))
    tree, todo = [], list(children.get(root, []))
    while todo:
        p = todo.pop(); tree.append(p); todo += children.get(p, [])
    peak = max(peak, sum(pss(p) for p in tree))
    time.sleep(0.2)
print(peak)
