# capdevila2018 experiments (filled in by the paper's wiring).
