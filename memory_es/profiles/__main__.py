"""``python -m memory_es.profiles``: write memory_es/shipped_profile.py from profiles.yaml."""

from memory_es.profiles import SHIPPED_MODULE, shipped_module_text

SHIPPED_MODULE.write_text(shipped_module_text())
print(f"wrote {SHIPPED_MODULE}")
