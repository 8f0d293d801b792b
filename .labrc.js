'use strict';

module.exports = {
    paths: ['test'],
    pattern: '\\.test',
    'coverage-exclude': ['dist', 'node_modules', 'test', 'bench'],
    'coverage-path': '.',
    typescript: true,
    // playwright-core (the browser tests) sets these when it is loaded.
    globals: '__zod_globalConfig,__zod_globalRegistry,Symbol(signal-exit emitter)',
    // npm test's coverage threshold. Not -t on the command line: lab reads it as a whole number (-t 96.5 checks
    // 96). Only under npm test, as a threshold turns coverage on and a run of one test file would fail it.
    ...process.env.npm_lifecycle_event === 'test' ? { threshold: 96.5 } : {}
};
