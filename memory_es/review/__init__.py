"""L2 reviewed maintenance and near-duplicate alignment (RFC 002; docs/lifecycle.md).

- ``alignment``: bounded near-duplicate relations (pure rules);
- ``ledger``: the ReviewLedger aggregate, one per principal (relations, proposals,
  decisions, maintenance operation records);
- ``proposals``: proposals as values, their planning and the approval checks;
- ``commands`` / ``handlers``: the service layer; ``hooks``: alignment on write;
- ``api``: ``memory.review`` (list, show, approve, decline, align).
"""
