"""dealframe.transport."""
