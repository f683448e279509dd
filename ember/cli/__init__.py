"""``ember``'s command line: ``ember compile | run | bench | tune | inspect`` (see ``main``)."""
