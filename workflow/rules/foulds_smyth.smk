# foulds_smyth experiments (filled in by the paper's wiring).
