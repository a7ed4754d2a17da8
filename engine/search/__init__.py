"""One answer: the pipeline from request to ranked, noted results, and issue-sized questions."""
