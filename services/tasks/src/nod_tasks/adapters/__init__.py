"""What the tasks service calls outside itself: the other nod services and
the model provider."""
