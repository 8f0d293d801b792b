'use strict';

module.exports = {
    paths: ['test'],
    pattern: '\\.test',
    'coverage-exclude': ['dist', 'node_modules', 'test', 'bench'],
    'coverage-path': '.',
    typescript: true,
    // playwright-core (the API page's test, test/e2e/oas-page.test.ts) leaves these on the global object.
    globals: '__zod_globalConfig,__zod_globalRegistry,Symbol(signal-exit emitter)'
};
