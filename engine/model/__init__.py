"""Records, design tables, languages and words every layer shares: what the engine talks about."""
