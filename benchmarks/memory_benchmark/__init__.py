"""The memory benchmark: corpus, deterministic arm, metrics, exact baseline.

``corpus`` (schema and loader), ``matching`` (the statement rule), ``driver`` (the one
module that calls the memory layer), ``metrics`` (pure integer scoring), ``run``,
``baseline`` (record and compare), ``report`` and ``command`` (the CLI's lazy target).
"""
