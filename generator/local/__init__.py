"""Layer 6: `local`: a job's pods run on this machine as their controller would."""
