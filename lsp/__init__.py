"""Language server and CLI: thin adapters from protocol to engine calls."""
