"""The schemas of both backends as numbered steps (docs/plugins.md, "Storage versions")."""
