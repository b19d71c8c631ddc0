"""Retrieval: one tokenizer, one ranking function, one renderer, shared by every store."""
