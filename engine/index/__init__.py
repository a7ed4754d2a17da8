"""What is on disk, as files, symbols, chunks, trigrams and words: discovery, parsing and storage."""
