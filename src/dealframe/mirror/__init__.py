"""dealframe.mirror."""
