"""Runtime plumbing: errors, statuses, the objective grid, interrupts, cleanup, progress, memory."""
