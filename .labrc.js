'use strict';

module.exports = {
    paths: ['test'],
    pattern: '\\.test',
    'coverage-exclude': ['dist', 'node_modules', 'test', 'bench'],
    'coverage-path': '.',
    typescript: true
};
