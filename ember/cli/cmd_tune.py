"""``ember tune MODEL.onnx --budget 10m --work-dir DIR``: search schedules with MetaSchedule."""

from __future__ import annotations

import inspect
import os
import re

from . import model as model_module
from .model import _import, load_onnx, parse_input_shapes
from .ui import ModelError, UsageError

_UNITS = {"s": 1, "m": 60, "h": 3600, "": 1}
_SECONDS_PER_TRIAL = 0.5  # a trial cap well above what the budget allows; max_time stops the search


def register(sub, common) -> None:
    p = sub.add_parser("tune", parents=[common], help="tune a model's kernels (MetaSchedule)",
                       description="Search for faster schedules of the model's kernels within a time budget; "
                       "the records go to --work-dir. Use them with `ember compile --tuning-db DIR`.")
    p.add_argument("model", help="the ONNX model file")
    p.add_argument("--budget", default="10m", help="time budget: 90s, 10m, 1h (default 10m)")
    p.add_argument("--work-dir", required=True, metavar="DIR", help="folder for the tuning records")
    p.add_argument("--target", default="llvm")
    p.add_argument("--input-shapes", action="append", metavar="NAME:D1xD2x...", help="fix input shapes")
    p.set_defaults(handler=run)


def parse_budget(text: str) -> float:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text.lower())
    if not match or float(match.group(1)) <= 0:
        raise UsageError(f"--budget: expected a positive duration such as 90s, 10m or 1h, got {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def run(args, progress) -> int:
    seconds = parse_budget(args.budget)
    model = load_onnx(args.model)
    tune_relax = model_module.meta_schedule_entry("tune_relax")
    if tune_relax is None:
        raise ModelError("tuning is not available yet: ember.meta_schedule.tune_relax is not part of this version "
                         "of ember (compile without tuning: `ember compile`)")
    mod = _import(model, parse_input_shapes(args.input_shapes), progress, os.path.basename(args.model))
    from ember.target import Target

    os.makedirs(args.work_dir, exist_ok=True)
    wanted = {"mod": mod, "params": {}, "target": Target(args.target), "work_dir": args.work_dir,
              "max_trials_global": max(8, int(seconds / _SECONDS_PER_TRIAL)), "max_time": seconds,
              "progress": not args.quiet, "num_trials_per_iter": 16}  # small rounds: the budget is checked between them
    accepted = inspect.signature(tune_relax).parameters
    kwargs = {k: v for k, v in wanted.items() if k in accepted}
    with progress.step(f"tuning for up to {args.budget}"):
        tune_relax(**kwargs)
    print(f"tuning records in {args.work_dir}; use them with: ember compile {args.model} --tuning-db {args.work_dir}")
    return 0
