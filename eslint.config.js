'use strict';

const HapiPlugin = require('@hapi/eslint-plugin');
const TsEslint = require('typescript-eslint');


module.exports = [
    { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'bench/results/**'] },
    ...HapiPlugin.configs.module,
    ...TsEslint.configs.recommended.map((config) => ({ ...config, files: ['**/*.ts'] })),
    {
        files: ['**/*.ts'],
        languageOptions: { sourceType: 'module' },
        rules: {
            '@typescript-eslint/no-explicit-any': 'off',
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
            '@typescript-eslint/no-require-imports': 'off'
        }
    },
    {
        // Experiments are generated per database in a loop; the closures are intended.
        files: ['test/**/*.ts'],
        rules: { 'no-loop-func': 'off', '@hapi/scope-start': 'off' }
    }
];
