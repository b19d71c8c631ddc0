"""Source evidence declarations (RFC 002 "Source authority and verification
prerequisite"): what a source is declared to be, by registration only, and the
declaration each belief's evidence was written under."""
