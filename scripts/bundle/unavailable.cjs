'use strict';
// Stands in, inside the bundle, for a library that only oclif's directory strategy, plugin discovery, spinners or
// TypeScript auto-transpiling use. handoff uses none of them (explicit strategy, manifest, no plugins, no
// auto-transpiling): any call is a bug and says so.
const unavailable = (name) => () => {
  throw new Error(`${name} is not part of the handoff bundle (scripts/build.mjs)`);
};
module.exports = new Proxy(
  {},
  {
    get: (_target, key) =>
      key === '__esModule' ? false : key === 'default' ? module.exports : unavailable(String(key)),
  },
);
