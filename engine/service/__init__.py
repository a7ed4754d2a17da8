"""The index kept current: the workspace that owns snapshots, refresh and background embedding."""
