"""The end of a tuning run: a summary table (task, trials, failed, best µs, GFLOP/s,
default µs, speed-up over the default schedule) printed, logged and written to
``work_dir/tuning_summary.md``, and tuning curves (best latency against trials and
against seconds, per task and, for several tasks, the weighted whole) saved as
``work_dir/tuning_curves.png``."""

from __future__ import annotations

import logging
import os

from .database import FAILED_SECS

LOG = logging.getLogger("ember.meta_schedule")


def summary_rows(tasks) -> list[list]:
    rows = []
    for t in tasks:
        best = t.best_secs if t.best_secs < FAILED_SECS else None
        gflops = t.flops / best / 1e9 if best and t.flops else None
        speedup = t.default_secs / best if best and t.default_secs else None
        rows.append([t.ctx.task_name, t.trials, t.failed, best and best * 1e6, gflops,
                     t.default_secs and t.default_secs * 1e6, speedup, t.weight])
    return rows


def summary_table(tasks) -> str:
    head = "| task | weight | trials | failed | best µs | GFLOP/s | default µs | speed-up over default |"
    lines = [head, "|" + "---|" * 8]

    def f(x, spec):
        return "—" if x is None else format(x, spec)

    for name, trials, failed, best, gflops, default, speedup, weight in summary_rows(tasks):
        lines.append(f"| {name} | {weight:g} | {trials} | {failed} | {f(best, '.1f')} | {f(gflops, '.1f')} | "
                     f"{f(default, '.1f')} | {f(speedup, '.2f')}× |")
    return "\n".join(lines)


def write_report(tasks, work_dir: str | None, plot: bool = True) -> str:
    table = summary_table(tasks)
    LOG.info("tuning summary\n%s", table)
    if work_dir:
        os.makedirs(work_dir, exist_ok=True)
        with open(os.path.join(work_dir, "tuning_summary.md"), "w") as f:
            f.write(table + "\n")
        if plot:
            try:
                plot_curves(tasks, os.path.join(work_dir, "tuning_curves.png"))
            except ImportError as err:
                LOG.warning("no tuning curves: %s (install the 'tuning' extra)", err)
    return table


def _steps(history):
    pts = [(n, s, b * 1e6) for n, s, b in history if b < FAILED_SECS]
    return pts


def plot_curves(tasks, path: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_n, ax_t) = plt.subplots(1, 2, figsize=(11, 4))
    for t in tasks:
        pts = _steps(t.history)
        if not pts:
            continue
        ax_n.step([p[0] for p in pts], [p[2] for p in pts], where="post", label=t.ctx.task_name[:30])
        ax_t.step([p[1] for p in pts], [p[2] for p in pts], where="post", label=t.ctx.task_name[:30])
        if t.default_secs:
            ax_n.axhline(t.default_secs * 1e6, ls=":", lw=0.8, color=ax_n.lines[-1].get_color())
    if len(tasks) > 1:
        events = sorted((s, n, b) for n, t in enumerate(tasks) for _, s, b in t.history if b < FAILED_SECS)
        best: dict = {}
        xs, ys = [], []
        for s, n, b in events:
            best[n] = b
            if len(best) == len(tasks):
                xs.append(s)
                ys.append(sum(tasks[k].weight * v * 1e6 for k, v in best.items()))
        if xs:
            ax_t.step(xs, ys, where="post", color="k", lw=2, label="whole model (weighted)")
    for ax, xlabel in ((ax_n, "trials"), (ax_t, "seconds")):
        ax.set_xlabel(xlabel)
        ax.set_ylabel("best latency (µs)")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    ax_t.legend(fontsize=7)
    ax_n.set_title("best latency vs trials (dotted: default schedule)")
    ax_t.set_title("best latency vs time")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
