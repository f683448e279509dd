"""``ember.contrib``: helpers TVM keeps outside its core (``contrib.utils.tempdir`` …)."""
