"""Writes a pose file to standard output at its own pace: each frame when its time `t` comes,
as a detector feeding a pipe would (`tail -f poses.jsonl | spotter classify --view -`). Then
waits LINGER seconds (default 0) before closing, so a page can be looked at after the end.

    python3 pace.py POSES.jsonl [LINGER]
"""

import json
import sys
import time


def main(argv):
    lines = open(argv[1]).read().splitlines()
    print(lines[0], flush=True)
    start = time.monotonic()
    for line in lines[1:]:
        wait = json.loads(line).get("t", 0) - (time.monotonic() - start)
        if wait > 0:
            time.sleep(wait)
        print(line, flush=True)
    time.sleep(float(argv[2]) if len(argv) > 2 else 0)


if __name__ == "__main__":
    main(sys.argv)
