"""In what order: routing weights, the ranking features, fusion, and the functions an issue is about."""
