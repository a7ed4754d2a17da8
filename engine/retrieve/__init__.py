"""Which spans each modality finds for a query, on one snapshot of the index."""
