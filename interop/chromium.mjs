// chromium.mjs holds what every browser driver here shares: the flags
// Debian's Chromium runs with on a machine without network or display.
// Without the background-networking flags, Chromium tries to reach
// Google's hosts at every start, which a closed network refuses.
export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
