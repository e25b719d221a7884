"""dealframe.public."""
