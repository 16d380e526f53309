"""The Django projects the fixtures run: settings, URLs and seed scripts,
imported only inside the sites' own processes."""
