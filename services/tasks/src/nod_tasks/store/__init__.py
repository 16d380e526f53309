"""The tasks schema's tables and the SQL that reads and changes them."""
