"""ember.relax.backend: lowering Relax to the VM — memory ops, IR walking helpers used by
the VM-lowering passes, and the VM code generator (Relax functions → instruction lists)."""
