"""The L2 review evaluation (RFC 002's matrix, items 4, 5 and 7)."""
