'use strict';
// oclif logs through the `debug` package (DEBUG=oclif:*), which is not a feature of handoff (HANDOFF_DEBUG=1 is):
// inside the bundle every logger is a no-op, so loading `debug` and its colour detection costs nothing.
const noop = () => {};
const make = () => Object.assign(() => {}, { enabled: false, extend: make, log: noop, namespace: '' });
module.exports = Object.assign(make, { default: make, enable: noop, disable: noop, enabled: () => false });
