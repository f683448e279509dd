"""``relay.testing``: the classic test workloads, built in code as Relax functions.

Each ``get_workload(...)`` returns ``(mod, params)``: ``mod["main"]`` takes ``data`` and
then every weight by name; ``params`` holds deterministic random weights (seeded), so
``relay.build(mod, "llvm", params=params)`` gives the same model every time.
"""

from . import mlp, mobilenet, resnet
from .layers import Network

__all__ = ["Network", "mlp", "mobilenet", "resnet"]
