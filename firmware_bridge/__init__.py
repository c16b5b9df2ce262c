"""The link to the glasses: a versioned, authenticated message protocol over serial and
network transports, and a terminal emulator of the HUD."""
