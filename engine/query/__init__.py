"""What was asked: one request, parsed once, with its intent and the rule that chose it."""
