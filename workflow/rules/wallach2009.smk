# wallach2009 experiments (filled in by the paper's wiring).
