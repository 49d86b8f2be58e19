"""The shared-backbone expert model: CUAD clause finding on the gpu queue.

One all-MiniLM-L6-v2 pass per segment feeds a router and one expert per CUAD category; only
the router's top-k experts run on a segment.  `models.inference.load_clause_model` is the entry
point for workers, `models.training.train` rebuilds the checkpoint from CUAD.  Nothing is
imported here so that cpu-only workers can import `models` without torch.
"""
