"""What the service calls outside itself: the apps an account connects to."""
