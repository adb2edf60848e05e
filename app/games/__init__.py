"""The games this server hosts: one package per game, the seam they all implement
(`seam.py`, `common.py`, `names.py`) and the registry that loads them (`registry.py`)."""
