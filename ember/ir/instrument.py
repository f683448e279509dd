"""``ember.ir.instrument``: TVM's home of pass instruments (same as ``ember.transform.instrument``)."""

from ember.transform.instrument import (  # noqa: F401
    PassInstrument, PassTimingInstrument, PrintAfterAll, PrintBeforeAll, pass_instrument,
)
