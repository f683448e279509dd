"""``ember.contrib.graph_runtime``: the older name of ``graph_executor`` (TVM before 0.8)."""

from ember.runtime.graph_executor import GraphModule, create

__all__ = ["GraphModule", "create"]
