"""What the code means: embedding backends, their cache and the vector index."""
