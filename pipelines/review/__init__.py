"""Human review as plain functions: what goes to a person, in which order (budget, priority)."""
