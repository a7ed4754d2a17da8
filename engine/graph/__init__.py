"""How the code connects: import resolution, call and reference edges, centrality."""
