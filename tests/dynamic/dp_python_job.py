"""The dynamic_profile test loop in Python: init(dir), then one step per stdin line, and
"start <file>" lines call start()."""
import sys

from aiprof import dynamic_profile as dp

dp.init(sys.argv[1])
print("ready", flush=True)
done = 0
for line in sys.stdin:
    line = line.strip()
    if line.startswith("start "):
        print("start", dp.start(line[6:]), flush=True)
        continue
    dp.step()
    done += 1
    print("stepped %d" % done, flush=True)
