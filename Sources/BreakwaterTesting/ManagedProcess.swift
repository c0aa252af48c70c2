// Placeholder until the testing support lands.
