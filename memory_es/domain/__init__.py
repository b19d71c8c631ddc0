"""The pure domain: value types, aggregates and their events, the resolver."""
