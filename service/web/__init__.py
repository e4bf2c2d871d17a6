"""Curia's web face, shared by the replay pages, the tournament site and the live gateway:
HTML/CSS/JS assets (package data, no external fetch) and the frames the viewer steps
through."""
