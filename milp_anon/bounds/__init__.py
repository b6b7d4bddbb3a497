"""Lower bounds on the optimum: the Lagrangian of the assignment model, its blocks, conflicts, ascent."""
