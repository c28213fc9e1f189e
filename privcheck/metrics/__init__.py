"""Information loss and utility measures of a release against its original file."""
