import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { ConfigError, loadOptions } from '../src/config';
import { loadSecret } from '../src/secret';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const tmp = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-config-'));

experiment('configuration', () => {

    test('defaults', () => {

        const options = loadOptions({});
        expect(options).to.include({ port: 8080, host: '127.0.0.1', databaseUrl: 'sqlite:./data/osprey.sqlite', contextRoot: 'maximo', structures: './structures', demo: true, maxPageSize: 1000, maxBody: 10 * 1024 * 1024, sqliteDriver: 'better-sqlite3' });
    });

    test('without DATABASE_URL the SQLite file is in the data folder (OSPREY_DATA)', () => {

        expect(loadOptions({ OSPREY_DATA: '/srv/osprey/data/' }).databaseUrl).to.equal('sqlite:/srv/osprey/data/osprey.sqlite');
        expect(loadOptions({ OSPREY_DATA: 'state' }).databaseUrl).to.equal('sqlite:state/osprey.sqlite');
        expect(loadOptions({ OSPREY_DATA: '/srv/osprey/data', DATABASE_URL: 'sqlite:/elsewhere/db.sqlite' }).databaseUrl).to.equal('sqlite:/elsewhere/db.sqlite');
        const dir = tmp();
        const file = Path.join(dir, 'osprey.config.yaml');
        Fs.writeFileSync(file, `dataDir: ${dir}\n`);
        expect(loadOptions({}, file).databaseUrl).to.equal(`sqlite:${dir}/osprey.sqlite`);
    });

    test('environment variables are read and converted', () => {

        const options = loadOptions({ PORT: '9000', OSPREY_DEMO: '0', OSPREY_MAX_BODY: '2mb', OSPREY_MAX_PAGE_SIZE: '50', DATABASE_URL: 'postgres://u@h:5432/db', OSPREY_ADMIN_USER: 'boss', OSPREY_ADMIN_PASSWORD: 'secret-pass', OSPREY_CONTEXT_ROOT: 'eam' });
        expect(options).to.include({ port: 9000, demo: false, maxBody: 2 * 1024 * 1024, maxPageSize: 50, databaseUrl: 'postgres://u@h:5432/db', adminUser: 'boss', contextRoot: 'eam' });
        expect(loadOptions({ OSPREY_MAX_BODY: '4096' }).maxBody).to.equal(4096);
        expect(loadOptions({ OSPREY_UI_BASE: 'https://eam.example.com/' }).uiBase).to.equal('https://eam.example.com');
        expect(loadOptions({}).uiBase).to.not.exist();
    });

    test('a config file overrides the environment', () => {

        const dir = tmp();
        const file = Path.join(dir, 'osprey.config.yaml');
        Fs.writeFileSync(file, 'port: 7000\nlicenses:\n  - { component: Pumps, license: commercial, key: ABC-123 }\n');
        const options = loadOptions({ PORT: '9000', HOST: '0.0.0.0' }, file);
        expect(options.port).to.equal(7000);
        expect(options.host).to.equal('0.0.0.0');
        expect(options.licenses).to.equal([{ component: 'Pumps', license: 'commercial', key: 'ABC-123' }]);
    });

    test('bad values stop the start with a message naming every setting', () => {

        const error = expect(() => loadOptions({ PORT: 'eighty', DATABASE_URL: 'mysql://x', OSPREY_MAX_BODY: 'lots', OSPREY_ADMIN_USER: 'boss', OSPREY_UI_BASE: 'ftp://eam' })).to.throw(ConfigError);
        expect(error.message).to.startWith('Invalid configuration:');
        for (const name of ['PORT', 'DATABASE_URL', 'OSPREY_MAX_BODY', 'OSPREY_ADMIN_USER', 'OSPREY_UI_BASE']) {
            expect(error.message).to.contain(`- ${name}`);
        }
    });

    test('config file problems are reported by file and key', () => {

        const dir = tmp();
        const bad = Path.join(dir, 'bad.yaml');
        Fs.writeFileSync(bad, 'maxPageSize: -1\n');
        expect(() => loadOptions({}, bad)).to.throw(ConfigError, /- bad\.yaml: maxPageSize/);
        const list = Path.join(dir, 'list.yaml');
        Fs.writeFileSync(list, '- 1\n');
        expect(() => loadOptions({}, list)).to.throw(ConfigError, /must hold a mapping/);
        expect(() => loadOptions({}, Path.join(dir, 'missing.yaml'))).to.throw(ConfigError, /Cannot read config file/);
        const empty = Path.join(dir, 'empty.yaml');
        Fs.writeFileSync(empty, '');
        expect(loadOptions({}, empty).port).to.equal(8080);
    });

    test('the secret is generated once into the data folder, or derived from OSPREY_SECRET', () => {

        const dir = Path.join(tmp(), 'data');
        const first = loadSecret(undefined, dir);
        expect(first).to.have.length(32);
        expect(loadSecret(undefined, dir)).to.equal(first);
        expect(Fs.statSync(Path.join(dir, 'secret')).mode & 0o777).to.equal(0o600);
        expect(loadSecret('x'.repeat(32), dir)).to.not.equal(first);
    });

    test('of nodes that generate the secret at the same moment, the first one\'s is everyone\'s', () => {

        const dir = Path.join(tmp(), 'data');
        const first = loadSecret(undefined, dir);
        // Another node found no secret a moment ago: its link finds the first node's in place.
        const nodeFs = require('node:fs') as typeof Fs;

        const exists = nodeFs.existsSync;
        nodeFs.existsSync = () => false;
        try {
            expect(loadSecret(undefined, dir)).to.equal(first);
        }
        finally {
            nodeFs.existsSync = exists;
        }

        expect(Fs.readdirSync(dir)).to.equal(['secret']);
    });
});
