"""dealframe.frames."""
