"""The read-model version: the schema and the retrieval policy that shaped the rows.

A read model whose stored version differs was built by other code: it is refused at
start-up until it is rebuilt.
"""

from memory_es.policy import PROJECTION_SCHEMA_VERSION, retrieval_policy

READ_MODEL_VERSION = f"recall_index@{PROJECTION_SCHEMA_VERSION};{retrieval_policy()}"
