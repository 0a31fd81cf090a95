"""CPU sampling test program: one pure-Python function takes ~70% of the CPU.

hot_function and cold_function run the same loop body, 7 and 3 iterations per round, so
their shares of CPU time are 70% and 30% whatever the machine's speed or load. A thread
started with `threading` runs its own rounds, so thread frames are sampled too.
"""
import sys
import threading


def hot_function(iterations):
    total = 0
    for i in range(iterations):
        total += i * i % 7
    return total


def cold_function(iterations):
    total = 0
    for i in range(iterations):
        total += i * i % 7
    return total


def rounds(count):
    for _ in range(count):
        hot_function(7000)
        cold_function(3000)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    worker = threading.Thread(target=rounds, args=(count // 4,), name="py_worker")
    worker.start()
    rounds(count)
    worker.join()


if __name__ == "__main__":
    main()
