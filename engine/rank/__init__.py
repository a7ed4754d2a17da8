"""In what order: routing weights, fusion and the ranking features, explained."""
