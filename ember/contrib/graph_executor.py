"""``ember.contrib.graph_executor``: TVM's graph-executor names over the Relax VM
(``create(graph_json, lib, dev)``, ``GraphModule``); see ``ember.runtime.graph_executor``."""

from ember.runtime.graph_executor import GraphModule, create

__all__ = ["GraphModule", "create"]
