"""One module per controller: the pods it would make of a job."""
