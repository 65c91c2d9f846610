"""Model files (versioned JSON) and data sets."""
