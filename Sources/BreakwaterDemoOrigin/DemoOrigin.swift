// Placeholder until the demo origin lands.
