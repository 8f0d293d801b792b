import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKnex, driverModules, DriverError } from '../../src/db/knex';
import { testDatabases } from '../helpers/databases';
import { root } from '../helpers/server';
import { runToExit } from '../helpers/process';
import { startTestServer } from '../helpers/server';


const { experiment, test, afterEach } = exports.lab = Lab.script();
const { expect } = Code;

const message = 'The SQLite driver sqlite3 (OSPREY_SQLITE_DRIVER=sqlite3) is not installed: Osprey\'s production dependencies leave it out. Install it with `npm install --omit=dev sqlite3`, or leave the setting out to use better-sqlite3.';

// sqlite3 is a dev dependency, so a production install lacks it; the tests take it away through the module lookup instead of uninstalling it.
experiment('the sqlite3 driver, not installed in production', () => {

    const resolve = driverModules.resolve;
    afterEach(() => {

        driverModules.resolve = resolve;
    });

    const without = (missing: string) => {

        driverModules.resolve = (name) => {

            if (name === missing) {
                throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
            }

            return resolve(name);
        };
    };

    test('is a dev dependency of the package (npm ci --omit=dev never builds it), still allowed its install script', () => {

        const pkg = JSON.parse(Fs.readFileSync(Path.join(root, 'package.json'), 'utf8'));
        expect(pkg.devDependencies.sqlite3).to.exist();
        expect(pkg.optionalDependencies).to.not.exist();
        expect(pkg.dependencies.sqlite3).to.not.exist();
        expect(pkg.dependencies['better-sqlite3']).to.exist();
        expect(pkg.allowScripts.sqlite3).to.be.true();
    });

    test('selected but not installed, stops the start naming the package and how to install it', async () => {

        without('sqlite3');
        expect(() => createKnex({ databaseUrl: 'sqlite::memory:', sqliteDriver: 'sqlite3' })).to.throw(DriverError, message);
        await expect(startTestServer(testDatabases[0]!, { sqliteDriver: 'sqlite3' })).to.reject(DriverError, message);

        // The default driver does not need it.
        const knex = createKnex({ databaseUrl: 'sqlite::memory:' });
        expect((await knex.raw('select 1 as one'))[0]).to.equal({ one: 1 });
        await knex.destroy();
    });

    test('the compiled server says so and exits, without a stack trace', async () => {

        // A module the process loads first, which makes sqlite3 impossible to find.
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-driver-'));
        const hide = Path.join(dir, 'hide-sqlite3.js');
        Fs.writeFileSync(hide, [
            'const Module = require("node:module");',
            'const resolve = Module._resolveFilename;',
            'Module._resolveFilename = function (request, ...rest) {',
            '    if (request === "sqlite3") { throw Object.assign(new Error("Cannot find module \'sqlite3\'"), { code: "MODULE_NOT_FOUND" }); }',
            '    return resolve.call(this, request, ...rest);',
            '};',
            ''
        ].join('\n'));
        try {
            const run = await runToExit({ DATABASE_URL: 'sqlite::memory:', OSPREY_DATA: dir, OSPREY_SQLITE_DRIVER: 'sqlite3', NODE_OPTIONS: `--require ${hide}` });
            expect(run.code).to.equal(1);
            expect(run.output).to.contain(message);
            expect(run.output).to.not.contain('    at ');
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
