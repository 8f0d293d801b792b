'use strict';

module.exports = {
    paths: ['test'],
    pattern: '\\.test',
    'coverage-exclude': ['dist', 'node_modules', 'test', 'bench'],
    'coverage-path': '.',
    typescript: true,
    // playwright-core (the browser tests) sets these when it is loaded.
    globals: '__zod_globalConfig,__zod_globalRegistry,Symbol(signal-exit emitter)'
};
