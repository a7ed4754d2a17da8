"""What is on disk and in one snapshot: discovery, parsing into symbols and chunks, trigrams, BM25, storage."""
