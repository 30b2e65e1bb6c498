"""Where the suite's time goes to numba compiling: an opt-in log, and its summary.

    APSPLIT_COMPILE_LOG=/tmp/compile python -m pytest    # on a clean clone: cold cache
    python tests/compile_log.py /tmp/compile
    python tests/compile_log.py /tmp/compile apsplit compare --rounds 10   # one command

The last form runs the ``apsplit`` command with the log on (``apsplit.tsv``), then
summarises; with ``NUMBA_CACHE_DIR`` set to an empty folder its cache starts cold.

With the variable set, ``conftest`` logs every compile numba makes (its compile
events), one file per xdist worker: end time, nesting depth, seconds, function,
argument types.  The summary gives each worker's exclusive compile seconds (a
compile's time less that of the compiles nested in it), the seconds both workers
spent compiling the same function and signature (the compile the workers' shares in
``conftest`` avoid), and the costliest functions.
"""

import atexit
import collections
import sys
import time
from pathlib import Path

from numba.core import event


class CompileLog(event.Listener):
    """Writes a line per finished compile to ``path``."""

    def __init__(self, path):
        self.file = open(path, "a", buffering=1)
        atexit.register(self.file.close)
        self.start = time.time()
        self.depth = 0

    def on_start(self, evt):
        self.depth += 1
        evt.data["started"] = time.time()

    def on_end(self, evt):
        self.depth -= 1
        now = time.time()
        function = getattr(evt.data["dispatcher"], "py_func", evt.data["dispatcher"])
        self.file.write(f"{now - self.start:.1f}\t{self.depth}\t{now - evt.data['started']:.2f}\t"
                        f"{function.__module__}.{function.__qualname__}\t{evt.data['args']}\n")


def start(folder, worker):
    """Log this process's compiles to ``folder/<worker>.tsv``."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    event.register("numba:compile", CompileLog(Path(folder) / f"{worker}.tsv"))


def exclusive_seconds(path):
    """{(function, argument types): exclusive seconds} of one worker's log.  A compile's
    nested compiles end before it does, one level deeper, after it started."""
    lines = [line.split("\t") for line in Path(path).read_text().splitlines()]
    records = [(float(end), int(depth), float(seconds), name, args)
               for end, depth, seconds, name, args in lines]
    out = collections.Counter()
    for i, (end, depth, seconds, name, args) in enumerate(records):
        nested = 0.0
        for other_end, other_depth, other_seconds, _, _ in reversed(records[:i]):
            if other_end < end - seconds:
                break
            if other_depth == depth + 1:
                nested += other_seconds
        out[name, args] += seconds - nested
    return out


def main(folder):
    workers = {path.stem: exclusive_seconds(path) for path in sorted(Path(folder).glob("*.tsv"))}
    for worker, seconds in workers.items():
        print(f"{worker}: {sum(seconds.values()):.0f} s compiling (exclusive)")
    if {"gw0", "gw1"} <= workers.keys():
        first, second = workers["gw0"], workers["gw1"]
        both = sum(min(first[key], second[key]) for key in first.keys() & second.keys())
        print(f"both workers compiled the same function and signature: {both:.0f} s each")
    by_function = collections.Counter()
    for seconds in workers.values():
        for (name, _), s in seconds.items():
            by_function[name] += s
    for name, s in by_function.most_common(15):
        print(f"{s:8.1f} s  {name}")
    signatures = collections.Counter()  # name: most signatures compiled in one process
    for seconds in workers.values():
        for name, count in collections.Counter(name for name, _ in seconds).items():
            signatures[name] = max(signatures[name], count)
    twice = [f"{name} ({count})" for name, count in signatures.most_common()
             if count > 1 and name.startswith("apsplit.")]
    print("apsplit functions compiled for several signatures in one process: "
          + (", ".join(twice) or "none"))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "apsplit":
        from apsplit.experiments.cli import main as apsplit_main

        start(sys.argv[1], "apsplit")
        apsplit_main(sys.argv[3:])
    main(sys.argv[1])
