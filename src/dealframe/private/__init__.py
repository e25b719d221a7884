"""dealframe.private."""
