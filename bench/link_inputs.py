"""N hard links (copies where links fail) to one clip in FOLDERS folders: ROOT/f00/clip00000.mov … (bench/batch-memory.sh;
one process for all the files, no fork per file).

    python3 bench/link_inputs.py CLIP ROOT N FOLDERS
"""
import os, shutil, sys

clip, root, n, folders = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for i in range(n):
    folder = os.path.join(root, "f%02d" % (i % folders))
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "clip%05d.mov" % i)
    try:
        os.link(clip, path)
    except OSError:
        shutil.copyfile(clip, path)
