"""Progress while training: a one-line bar redrawn in place on a terminal, plain periodic lines
otherwise (logs, CI), nothing with --quiet. Everything goes to stderr; stdout carries results."""

import sys
import time


def _fmt(value):
    if value is None:
        return "-"
    if abs(value) >= 1000 or (value != 0 and abs(value) < 1e-3):
        return f"{value:.3e}"
    return f"{value:.4f}"


class Progress:
    def __init__(self, total_steps, quiet=False, stream=None):
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.total = total_steps
        self._last_draw = 0.0
        self._width = 0
        self._start = None  # (time, step) of the first step this process ran
        self._said_compiling = False  # the compile helper's line was written (compiling_aside)

    def eta(self, step):
        """'ETA 1m05s' from this process's pace so far, or '' before there is one."""
        now = time.monotonic()
        if self._start is None:
            self._start = (now, step)
            return ""
        t0, s0 = self._start
        if not self.total or step <= s0 or step >= self.total:
            return ""
        left = (self.total - step) * (now - t0) / (step - s0)
        minutes, seconds = divmod(int(left + 0.5), 60)
        hours, minutes = divmod(minutes, 60)
        return "  ETA " + (f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{seconds:02d}s")

    def update(self, step, epoch, values, samples_per_s, force=False):
        """Called after every step (a terminal bar redraws at most 10 times a second)."""
        eta = self.eta(step)
        if self.quiet or not self.tty:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < 0.1 and step != self.total:
            return
        self._last_draw = now
        frac = min(1.0, step / self.total) if self.total else 0.0
        bar = "#" * int(frac * 24)
        metrics = "  ".join(f"{k} {_fmt(v)}" for k, v in values.items())
        speed = f"  {samples_per_s:,.0f} samples/s" if samples_per_s else ""
        total = self.total if self.total else "?"
        line = f"epoch {epoch} [{bar:<24}] {step}/{total}  {metrics}{speed}{eta}"
        pad = max(0, self._width - len(line))
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()
        self._width = len(line)

    def report(self, phase, step, epoch, values, samples_per_s=None):
        """A periodic report (every fetch.every steps, and each evaluation)."""
        if self.quiet:
            return
        metrics = "  ".join(f"{k} {_fmt(v)}" for k, v in values.items())
        speed = f"  {samples_per_s:,.0f} samples/s" if samples_per_s else ""
        eta = self.eta(step) if phase == "train" else ""
        line = f"{phase:<5} epoch {epoch} step {step}: {metrics}{speed}{eta}"
        if self.tty:
            if phase == "train":
                return  # the bar shows it
            self.stream.write("\r" + " " * self._width + "\r")
            self._width = 0
        self.stream.write(line + "\n")
        self.stream.flush()

    def compiling(self, count, seconds):
        """numba compiled a kernel (kernels.compile_watch): on the first, say what the wait is; on a
        terminal keep a count."""
        if self.quiet:
            return
        if count == 1 and not self._said_compiling:
            self.message("compiling kernels for this machine (first run only: numba caches them)...")
        if self.tty:
            line = f"compiling kernels: {count} done, {seconds:.1f} s"
            self.stream.write("\r" + line + " " * max(0, self._width - len(line)))
            self.stream.flush()
            self._width = len(line)

    def compiling_aside(self, count):
        """A loop went to the compile helper process: on the first, say that the first steps run
        without it."""
        if count == 1 and not self.quiet:
            self._said_compiling = True
            self.message(
                "compiling kernels for this machine in a helper process (first run only: numba "
                "caches them); the first steps run numpy stand-ins meanwhile, with the same numbers"
            )

    def compiled(self, count, seconds):
        """The compiles of the first step are over: one line with what they cost."""
        if count and not self.quiet:
            self.message(f"compiled {count} kernels in {seconds:.1f} s (cached for the next runs)")

    def message(self, text):
        if self.quiet:
            return
        self.end()
        self.stream.write(text + "\n")
        self.stream.flush()

    def end(self):
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0
