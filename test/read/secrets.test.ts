import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { systemTableNames } from '../../src/db/system-tables';
import { loadRegistry } from '../../src/load-registry';
import type { Row, Structure } from '../../src/structures/registry';
import { onEachDatabase } from '../helpers/experiments';
import { copyFixture, fixtureCopies, removeCopy } from '../helpers/fixtures';
import { testDatabases } from '../helpers/databases';
import { fixtures, maxauth, startTestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before } = lab;
const { expect } = Code;

// Secrets never leave but to their owner's own read (issue 34). Generated from the YAML of
// test/fixtures/structures/secrets: every path of one to three relations (and child objects) the structures declare,
// of both cardinalities, from every structure, ending on every secret attribute of where it lands, asked for in every
// form a read has — a nested, dotted and `rel.` select of a collection and of a record, a where, an aggregate, the
// schema of a selection, a lookup's select, a saved query's where and a report's columns — and every form that names
// an attribute of the record itself (orderBy, distinct, gbcols, search, timeline, lookups, a child's route, a write's
// answer). Each is refused with a 400 naming the secret attribute, and no answer of the whole experiment carries a
// secret value that was stored, as stored or as given, but the one read where its owner asks for it.

const home = '/maximo/oslc';
const folder = Path.join(fixtures, 'secrets');
const registry = loadRegistry(folder);

interface Hop {
    readonly name: string;
    readonly many: boolean;
    readonly object: Structure['root'];
    /** The structure reached (its relations can be followed); none for a child object. */
    readonly structure?: Structure;
}

// What a name reaches from an object: its relations (root objects) and its child objects.
const hopsFrom = (object: Structure['root'], structure: Structure | undefined): Hop[] => [
    ...Object.entries(structure?.root === object ? structure.def.relations : {}).map(([name, relation]) => {

        const target = registry.get(relation.structure)!;
        return { name, many: relation.cardinality === 'many', object: target.root, structure: target };
    }),
    ...[...object.children.values()].map((child) => ({ name: child.name, many: true, object: child.object }))
];

const secretsOf = (object: Structure['root']) => [...object.attributes.values()].filter((attr) => attr.secret).map((attr) => attr.name);

interface Route {
    readonly start: Structure;
    readonly hops: readonly Hop[];
}

const routes: Route[] = [];
const walk = (start: Structure, hops: readonly Hop[]) => {

    if (hops.length) {
        routes.push({ start, hops });
    }

    const last = hops.length ? hops[hops.length - 1]! : { object: start.root, structure: start };
    if (hops.length < 3) {
        hopsFrom(last.object, last.structure).forEach((hop) => walk(start, [...hops, hop]));
    }
};

registry.list().forEach((structure) => walk(structure, []));

// The select that reaches `inner` at the end of the route, in each of a select's spellings.
const nested = (hops: readonly Hop[], inner: string, rel = '') => hops.reduceRight((text, hop) => `${rel}${hop.name}{${text}}`, inner);
const selects = (hops: readonly Hop[], attr: string): Record<string, string> => ({
    nested: nested(hops, attr),
    dotted: `${hops.map((hop) => hop.name).join('.')}.${attr}`,
    rel: nested(hops, attr, 'rel.'),
    // The last hop's aggregate over the secret: a sum of a number, a count of anything else.
    aggregate: nested(hops.slice(0, -1), `${hops[hops.length - 1]!.name}.${attr}._db${hops[hops.length - 1]!.object.attributes.get(attr)!.type === 'integer' ? 'sum' : 'count'}`)
});

const url = (path: string, query: Record<string, string> = {}) => {

    const search = new URLSearchParams(query).toString().replace(/\+/g, '%20');
    return `${path}${search ? `?${search}` : ''}`;
};

const isRefused = (res: { statusCode: number; payload: string }, object: string, attr: string, what: string) => {

    expect(res.statusCode, `${what}: ${res.payload}`).to.equal(400);
    expect(res.payload, what).to.contain(`${object}.${attr.toUpperCase()} is secret`);
};

experiment('secret attributes in the YAML', () => {

    test('the routes are generated from the fixture: 1 to 3 hops, both cardinalities, every structure', () => {

        expect(routes.length).to.be.above(90);
        for (const length of [1, 2, 3]) {
            for (const many of [true, false]) {
                expect(routes.some((route) => route.hops.length === length && route.hops[length - 1]!.many === many), `${length} ${many}`).to.be.true();
            }
        }

        expect(new Set(routes.map((route) => route.start.name))).to.equal(new Set(['MXAPIAPIKEY', 'MXSECPERSON', 'MXSECVAULT']));
    });

    // The problems of loading the fixture, as `npm run validate` and a start load it, with `entry` added under
    // `section` of the start structure's YAML and `change` made to each file; 'loaded' when there are none.
    const problemsWith = (start: Structure, section: 'savedQueries' | 'reports', entry: string, change = (file: string, text: string) => text) => {

        const dir = copyFixture({ from: 'secrets', edit: (original, file) => {

            const text = change(file, original);
            if (file !== `${start.id}.yaml`) {
                return text;
            }

            return text.includes(`\n${section}:\n`) ? text.replace(`\n${section}:\n`, `\n${section}:\n${entry}\n`) : `${text}${section}:\n${entry}\n`;
        } });
        try {
            loadRegistry(dir);
            return 'loaded';
        }
        catch (error) {
            return (error as Error).message;
        }
        finally {
            removeCopy(dir);
        }
    };

    // The problems of the fixture with one file's text changed.
    const loadEdited = (file: string, edit: (text: string) => string) => problemsWith(registry.get('MXSECVAULT')!, 'reports', '  - { name: plain.rptdesign, title: Plain, columns: [vaultid] }', (name, text) => (name === file ? edit(text) : text));

    test('a secret cannot be a key, a join, a lookup\'s value, an owner or a search attribute, nor plain in another object of its table', () => {

        const cases: [string, (text: string) => string, string][] = [
            ['mxsecvault.yaml', (text) => text.replace('primaryKey: [vaultid]', 'primaryKey: [phrase]'), 'at primaryKey: "phrase" is a secret attribute of SECVAULT and cannot be a key'],
            ['mxsecvault.yaml', (text) => text.replace('vaultid: { type: bigint, generated: true }', 'vaultid: { type: bigint, generated: true, secret: true }'), 'at uniqueColumn: "vaultid" is a secret attribute of SECVAULT and cannot be the unique column'],
            ['mxsecvault.yaml', (text) => text.replace('join: { owner: personid } }\n  people', 'join: { phrase: personid } }\n  people'), 'at relations.person.join.phrase: "phrase" is a secret attribute of SECVAULT and cannot be joined on'],
            ['mxsecperson.yaml', (text) => text.replace('join: { personid: userid } }\n  key:', 'join: { personid: apikeyhash } }\n  key:'), 'at relations.keys.join.personid: "apikeyhash" is a secret attribute of APIKEYTOKEN and cannot be joined on'],
            ['mxsecperson.yaml', (text) => text.replace('join: { personid: personid }', 'join: { personid: personid, pin: badgecode }'), 'at children.badge.join.pin: "pin" is a secret attribute of SECPERSON and cannot be joined on'],
            ['mxsecperson.yaml', (text) => text.replace('value: apikeytokenid', 'value: apikey'), 'at lookups.keys.value: "apikey" is a secret attribute of APIKEYTOKEN and cannot be a lookup\'s value'],
            ['mxsecperson.yaml', (text) => text.replace('secret: true, title: PIN', 'secret: true, search: true, title: PIN'), 'at attributes.pin.search: "pin" is a secret attribute of SECPERSON and cannot be a search attribute'],
            ['mxsecvault.yaml', (text) => text.replace('owner: { type: upper, length: 30,', 'owner: { type: upper, length: 30, secret: true,'), 'at access.owner: "owner" is a secret attribute of SECVAULT and cannot be the owner attribute'],
            ['mxsecperson.yaml', (text) => text.replace('    table: secbadge', '    table: secperson').replace('badgecode: { type: aln, length: 40, secret: true }', 'badgecode: { type: aln, length: 40, secret: true }\n      pin: { type: aln, length: 40 }'), 'at children.badge.attributes.pin.secret: "pin" of table "secperson" is secret in one of its objects and not in another']
        ];
        for (const [file, edit, message] of cases) {
            expect(loadEdited(file, edit), message).to.contain(message);
        }

        expect(loadEdited('mxsecvault.yaml', (text) => text)).to.equal('loaded');
    });

    test('a saved query\'s or a report\'s where cannot name a secret at the end of any route: it does not load', () => {

        for (const { start, object, attr, path } of aims) {
            const refusal = `${object}.${attr.toUpperCase()} is secret`;
            expect(problemsWith(start, 'savedQueries', `  LEAK: { title: Leak, where: '${path}!="*"' }`), `${start.name} ${path}`).to.contain(`at savedQueries.LEAK.where: ${refusal}`);
            expect(problemsWith(start, 'reports', `  - { name: leak.rptdesign, title: Leak, columns: [${start.root.uniqueColumn}], where: '${path}!="*"' }`), `${start.name} ${path}`).to.contain(`.where: ${refusal}`);
        }
    });

    test('a report\'s columns cannot name a secret, of the record, of a related record or in an aggregate', () => {

        for (const structure of registry.list()) {
            for (const attr of secretsOf(structure.root)) {
                expect(problemsWith(structure, 'reports', `  - { name: leak.rptdesign, title: Leak, columns: [${attr}] }`), `${structure.name} ${attr}`).to.contain(`${structure.root.name}.${attr.toUpperCase()} is secret`);
            }
        }

        for (const { start, hops } of routes.filter((route) => route.hops.length === 1 && route.hops[0]!.structure)) {
            const [hop] = hops as [Hop];
            for (const attr of secretsOf(hop.object)) {
                for (const column of [`${hop.name}.${attr}`, `${hop.name}.${attr}._dbcount`]) {
                    expect(problemsWith(start, 'reports', `  - { name: leak.rptdesign, title: Leak, columns: [${column}] }`), `${start.name} ${column}`).to.contain(`${hop.object.name}.${attr.toUpperCase()} is secret`);
                }
            }
        }
    });
});

// What names a secret at the end of a route: its start, the object and attribute, the text of its path.
interface Aim {
    readonly start: Structure;
    readonly hops: readonly Hop[];
    readonly object: string;
    readonly attr: string;
    readonly path: string;
}

const aims: Aim[] = routes.flatMap(({ start, hops }) => secretsOf(hops[hops.length - 1]!.object).map((attr) => ({ start, hops, object: hops[hops.length - 1]!.object.name, attr, path: `${hops.map((hop) => hop.name).join('.')}.${attr}` })));

// Each start structure's YAML with a report naming nothing secret. (A saved query's or a report's where that names
// a secret does not load: see above.)
const withQueries = (text: string, file: string): string => {

    const start = registry.list().find((structure) => file === `${structure.id}.yaml`)!;
    return `${text}reports:\n  - { name: plain.rptdesign, title: Plain, columns: [${start.root.uniqueColumn}] }\n`;
};

onEachDatabase(lab, 'secrets through every route and query form', { settings: { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' }, fixture: { from: 'secrets', edit: withQueries }, timeout: 600000 }, (t) => {

    const admin = maxauth('admin', 'admin-secret-1');
    const anna = maxauth('anna', 'anna-password');
    const ben = maxauth('ben', 'ben-password');
    // Every secret value stored, as given and as stored (a key sealed, its digest), and what the owner's own read answers.
    const secrets: string[] = [];
    const ownKeys: Record<string, string[]> = { ANNA: [], BEN: [], ADMIN: [] };
    // A record of each start structure, ANNA's, that each reader may read.
    const records = new Map<string, string>();
    // ANNA with her 5-minute API key (the probe's: it read her key that never expires), an administrator (every key
    // reveals to one on a direct read), and ANNA with her password.
    const readers: { label: string; headers: Record<string, string> }[] = [];
    let searched = 0;

    // Every answer of the experiment is searched for every secret value: none carries one (the owner's own read of
    // their keys, the one place a secret renders, is read without it).
    const search = (what: string, payload: string) => {

        for (const value of secrets) {
            expect(payload.includes(value), `${what} answered the secret ${value}: ${payload.slice(0, 400)}`).to.be.false();
        }

        ++searched;
    };

    const inject = async (what: string, headers: Record<string, string>, target: string, more: { method?: string; payload?: object; headers?: Record<string, string> } = {}) => {

        const res = await t.inject({ method: more.method ?? 'GET', url: target, headers: { ...headers, ...more.headers }, ...more.payload ? { payload: more.payload } : {} });
        search(what, res.payload);
        return res;
    };

    const post = async (os: string, headers: Record<string, string>, payload: object, properties = '*') => {

        const res = await t.inject({ method: 'POST', url: `${home}/os/${os}`, headers: { ...headers, properties }, payload });
        expect(res.statusCode, res.payload).to.equal(201);
        return res;
    };

    before(async () => {

        const { users, knex } = t.server.app.osprey;
        await users.create({ userid: 'ANNA', password: 'anna-password', groups: ['EVERYONE'] });
        await users.create({ userid: 'BEN', password: 'ben-password', groups: ['EVERYONE'] });
        for (const [userid, headers, n] of [['ANNA', anna, 1], ['BEN', ben, 2], ['ADMIN', admin, 3]] as const) {
            const pin = `PIN-${userid}-${4417 * n}`;
            const badgecode = `BADGE-${userid}-${9103 * n}`;
            const phrase = `PHRASE-${userid}-${7001 * n}`;
            const code = 73914452 + n;
            const opened = `201${n}-03-07T11:22:33`;
            secrets.push(pin, badgecode, phrase, String(code), opened);
            const person = await post('mxsecperson', admin, { personid: userid, displayname: `${userid} Person`, hired: '2020-01-01T00:00:00Z', pin, badge: [{ badgenum: `B${n}`, badgecode }] });
            const vault = await post('mxsecvault', admin, { owner: userid, label: `${userid}'s`, phrase, code, opened: `${opened}Z` });
            // Two keys of each user, made by their own credential login: one of 5 minutes, one that never expires.
            for (const expiration of [5, -1]) {
                const key = await post('mxapiapikey', headers, { expiration }, 'apikeytokenid,apikey');
                ownKeys[userid]!.push(key.result.apikey);
                if (userid === 'ANNA' && expiration === 5) {
                    readers.push({ label: 'ANNA (5-minute API key)', headers: { apikey: key.result.apikey } }, { label: 'ADMIN', headers: admin });
                    records.set('MXAPIAPIKEY', new URL(key.headers.location as string).pathname);
                }
            }

            if (userid === 'ANNA') {
                records.set('MXSECPERSON', new URL(person.headers.location as string).pathname);
                records.set('MXSECVAULT', new URL(vault.headers.location as string).pathname);
            }
        }

        readers.push({ label: 'ANNA', headers: anna });
        for (const row of await knex('apikeytoken').select('apikey', 'apikeyhash') as Row[]) {
            secrets.push(String(row.apikey), String(row.apikeyhash));
        }

        secrets.push(...Object.values(ownKeys).flat());
        expect(secrets.length).to.equal(3 * 5 + 6 * 3);
    });

    test('the owner\'s direct read of their keys still answers their own keys, and only to a credential login', async () => {

        const keys = (res: { result: { member: Row[] } }) => res.result.member.map((member) => member.apikey).filter(Boolean).sort();
        const own = await t.inject({ url: `${home}/os/mxapiapikey?oslc.select=userid,apikey`, headers: anna });
        expect(own.statusCode, own.payload).to.equal(200);
        expect(keys(own)).to.equal([...ownKeys.ANNA!].sort());
        const record = await t.inject({ url: `${records.get('MXAPIAPIKEY')}?oslc.select=apikey`, headers: anna });
        expect(record.result.apikey).to.equal(ownKeys.ANNA![0]);
        expect((await t.inject({ url: `${home}/os/mxapiapikey?oslc.select=apikey`, headers: readers[0]!.headers })).statusCode).to.equal(403);
        // Its digest is secret too, and never rendered, even to its owner: naming it is refused.
        const digest = await inject('apikeyhash', anna, `${home}/os/mxapiapikey?oslc.select=apikeyhash`);
        expect(digest.statusCode, digest.payload).to.equal(400);
    });

    for (const aim of aims) {
        const { start, hops, object, attr, path } = aim;
        const label = `${start.name} ${path} (${hops.map((hop) => (hop.many ? 'many' : 'one')).join(', ')})`;
        test(`${label} is refused in every form`, async () => {

            const collection = `${home}/os/${start.id}`;
            const forms: Record<string, string> = {};
            for (const [form, select] of Object.entries(selects(hops, attr))) {
                forms[`select ${form}`] = url(collection, { 'oslc.select': select });
                forms[`record ${form}`] = url(records.get(start.name)!, { 'oslc.select': select });
            }

            forms.where = url(collection, { 'oslc.where': `${path}!="*"`, 'oslc.select': start.root.uniqueColumn });
            forms['where by value'] = url(collection, { 'oslc.where': `${path}="guess"` });
            forms['report with the request\'s where'] = url(collection, { action: 'genreport', reportname: 'plain.rptdesign', reportformat: 'csv', 'oslc.where': `${path}!="*"` });
            forms['count with where'] = url(collection, { count: '1', 'oslc.where': `${path}!="*"` });
            forms['gbcols with where'] = url(collection, { gbcols: `${start.root.uniqueColumn},count.*`, 'oslc.where': `${path}!="*"` });
            forms['schema of a selection'] = url(`${home}/jsonschemas/${start.id}`, { 'oslc.select': selects(hops, attr).nested });
            // The refusal is of the name, whoever reads: the 5-minute key and an administrator, who together reach every row.
            for (const { label: who, headers } of readers.slice(0, 2)) {
                for (const [form, target] of Object.entries(forms)) {
                    isRefused(await inject(`${who} ${form} ${target}`, headers, target), object, attr, `${who} ${form} ${target}`);
                }
            }

            // What names no secret reaches the same rows, without their secrets.
            const star = url(collection, { 'oslc.select': nested(hops, '*') });
            const res = await inject(`ADMIN ${star}`, admin, star);
            expect(res.statusCode, res.payload).to.equal(200);
        });
    }

    for (const structure of registry.list()) {
        for (const object of [structure.root, ...[...structure.root.children.values()].map((child) => child.object)]) {
            for (const attr of secretsOf(object)) {
                test(`${structure.name} ${object.name}.${attr} of the record itself is refused in every form but its owner's direct read`, async () => {

                    const collection = `${home}/os/${structure.id}`;
                    const child = object === structure.root ? undefined : [...structure.root.children.values()].find((candidate) => candidate.object === object)!.name;
                    const forms: Record<string, string> = child ? {
                        'child collection select': url(`${records.get(structure.name)}/${child}`, { 'oslc.select': attr }),
                        'child collection where': url(`${records.get(structure.name)}/${child}`, { 'oslc.where': `${attr}!="*"` }),
                        'child collection orderBy': url(`${records.get(structure.name)}/${child}`, { 'oslc.orderBy': `-${attr}` }),
                        'child where': url(collection, { 'oslc.where': `${child}.${attr}!="*"` })
                    } : {
                        where: url(collection, { 'oslc.where': `${attr}!="*"` }),
                        orderBy: url(collection, { 'oslc.orderBy': `-${attr}`, 'oslc.select': structure.root.uniqueColumn }),
                        distinct: url(collection, { distinct: attr }),
                        gbcols: url(collection, { gbcols: attr }),
                        'gbcols aggregate': url(collection, { gbcols: `${structure.root.uniqueColumn},max.${attr}` }),
                        'gbcols count': url(collection, { gbcols: `${structure.root.uniqueColumn},count.${attr}` }),
                        'gbsortby': url(collection, { gbcols: structure.root.uniqueColumn, gbsortby: attr }),
                        searchAttributes: url(collection, { 'oslc.searchTerms': 'PIN', searchAttributes: attr }),
                        timeline: url(collection, { tlrange: '-30Y', tlattribute: attr }),
                        'report where': url(collection, { action: 'genreport', reportname: 'plain.rptdesign', reportformat: 'json', 'oslc.where': `${attr}!="*"` }),
                        'schema of a selection': url(`${home}/jsonschemas/${structure.id}`, { 'oslc.select': attr })
                    };
                    // The API keys' own select is their owner's direct read (above); other objects reveal no secret at all.
                    if (structure.name !== 'MXAPIAPIKEY' || child) {
                        const select = child ? `${child}{${attr}}` : attr;
                        forms['select of the collection'] = url(collection, { 'oslc.select': select });
                        forms['select of the record'] = url(records.get(structure.name)!, { 'oslc.select': select });
                    }

                    for (const { label: who, headers } of readers) {
                        for (const [form, target] of Object.entries(forms)) {
                            const res = await inject(`${who} ${form} ${target}`, headers, target);
                            if (form === 'gbsortby') {
                                // gbsortby names the outputs of gbcols: a secret is none of them.
                                expect(res.statusCode, `${who} ${form}`).to.equal(400);
                                continue;
                            }

                            isRefused(res, object.name, attr, `${who} ${form} ${target}`);
                        }
                    }
                });
            }
        }
    }

    test('lookups list no secret, by their own select, where or order, nor of a secret attribute', async () => {

        const person = records.get('MXSECPERSON')!;
        const vault = records.get('MXSECVAULT')!;
        const cases: [string, string, string][] = [
            [url(`${person}/getlist~favkey`, { 'oslc.select': 'apikey' }), 'APIKEYTOKEN', 'apikey'],
            [url(`${person}/getlist~favkey`, { 'oslc.select': 'userid,apikeyhash' }), 'APIKEYTOKEN', 'apikeyhash'],
            [url(`${person}/getlist~favkey`, { 'oslc.where': 'apikey!="*"' }), 'APIKEYTOKEN', 'apikey'],
            [url(`${person}/getlist~favkey`, { 'oslc.orderBy': '-apikey' }), 'APIKEYTOKEN', 'apikey'],
            [url(`${person}/getlist~favkey`, { 'oslc.select': 'person{pin}' }), 'SECPERSON', 'pin'],
            [url(`${person}/getlist~favkey`, { 'oslc.select': 'person{keys{apikey}}' }), 'APIKEYTOKEN', 'apikey'],
            [url(`${home}/os/mxsecperson/zombie/getlist~favkey`, { 'oslc.select': 'apikey' }), 'APIKEYTOKEN', 'apikey'],
            [url(`${vault}/getlist~owner`, { 'oslc.select': 'pin' }), 'SECPERSON', 'pin'],
            [url(`${vault}/getlist~owner`, { 'oslc.where': 'vault.phrase!="*"' }), 'SECVAULT', 'phrase'],
            [url(`${vault}/getlist~phrase`), 'SECVAULT', 'phrase'],
            [url(`${person}/getlist~pin`), 'SECPERSON', 'pin']
        ];
        for (const { label: who, headers } of readers) {
            for (const [target, object, attr] of cases) {
                isRefused(await inject(`${who} lookup ${target}`, headers, target), object, attr, `${who} ${target}`);
            }

            const plain = await inject(`${who} lookup`, headers, url(`${person}/getlist~favkey`, { 'oslc.select': '*' }));
            expect(plain.statusCode, plain.payload).to.equal(200);
        }
    });

    test('a write answers no secret through a relation, and writes nothing when its answer is refused', async () => {

        const { knex } = t.server.app.osprey;
        const stored = await knex('secvault').count({ n: '*' });
        for (const properties of ['person{keys{apikey}}', 'people.pin', 'phrase', 'person.key.apikeyhash']) {
            const res = await inject(`POST ${properties}`, admin, `${home}/os/mxsecvault`, { method: 'POST', payload: { owner: 'ANNA', label: 'refused', phrase: 'never' }, headers: { properties } });
            expect(res.statusCode, res.payload).to.equal(400);
            expect(res.payload).to.contain('is secret');
        }

        expect(await knex('secvault').count({ n: '*' })).to.equal(stored);
        const keyAnswer = await inject('POST key answer', anna, `${home}/os/mxapiapikey`, { method: 'POST', payload: {}, headers: { properties: 'person{keys{apikey}}' } });
        expect(keyAnswer.statusCode, keyAnswer.payload).to.equal(400);
    });

    test('after-commit subscribers hear no secret', async () => {

        const heard: unknown[] = [];
        const unsubscribe = t.server.onCommit((commit) => {

            heard.push(commit.writes.map(({ kind, operation, id, key }) => ({ kind, operation, id, key })));
        });
        try {
            await post('mxsecvault', admin, { owner: 'BEN', label: 'heard', phrase: secrets[2]!, code: 5 });
            await post('mxsecperson', admin, { personid: 'CAROL', pin: secrets[0]! });
        }
        finally {
            unsubscribe();
        }

        expect(heard.length).to.equal(2);
        search('after-commit', JSON.stringify(heard));
    });

    test('every answer was searched', () => {

        expect(searched).to.be.above(4000);
    });
});

experiment('structures over Osprey\'s own tables and the databases\' catalogs', () => {

    const copies = fixtureCopies(lab);
    const steal = (table: string | undefined, object = 'STEAL') => `name: MXSTEAL
object: ${object}
${table === undefined ? '' : `table: ${table}\n`}uniqueColumn: rid
primaryKey: [userid]
attributes:
  rid: { type: bigint, generated: true }
  userid: { type: upper, length: 30 }
  passwordhash: { type: aln, length: 300 }
access:
  read: [EVERYONE]
`;
    const reserved = [...systemTableNames, 'osprey_future', 'sqlite_master', 'sqlite_sequence', 'pg_shadow', 'pg_authid', 'information_schema'];

    test('cannot be declared: the load of `npm run validate` and of a start names the table', () => {

        for (const table of reserved) {
            const dir = copies({ from: 'secrets', add: { 'mxsteal.yaml': steal(table) } });
            expect(() => loadRegistry(dir), table).to.throw(new RegExp(`mxsteal\\.yaml:\\d+:\\d+ at table: table "${table}" `));
        }

        // The user tables are served (MXAPIMAXUSER, MXAPIMAXGROUP), as their own business objects only, and the
        // columns that hold credentials secret.
        for (const [table, object] of [['osprey_user', 'MAXUSER'], ['osprey_group', 'MAXGROUP'], ['osprey_groupuser', 'GROUPUSER']]) {
            const dir = copies({ from: 'secrets', add: { 'mxsteal.yaml': steal(table) } });
            expect(() => loadRegistry(dir), table).to.throw(new RegExp(`table "${table}" is Osprey's table of business object ${object}; a structure names it only as that object, not as STEAL`));
        }

        const open = copies({ from: 'secrets', add: { 'mxsteal.yaml': steal('osprey_user', 'MAXUSER') } });
        expect(() => loadRegistry(open)).to.throw(/mxsteal\.yaml:\d+:\d+ at table: MAXUSER must declare passwordhash and credstamp with `secret: true`: they hold credentials/);

        // Named by the object alone, in any case, the table is still Osprey's.
        for (const object of ['OSPREY_USER', 'OSPREY_SESSION', 'PG_SHADOW']) {
            const dir = copies({ from: 'secrets', add: { 'mxsteal.yaml': steal(undefined, object) } });
            expect(() => loadRegistry(dir), object).to.throw(new RegExp(`table "${object.toLowerCase()}" `));
        }

        // A child object cannot name one either.
        const child = copies({ from: 'secrets', edit: (text, file) => (file === 'mxsecperson.yaml' ? text.replace('table: secbadge', 'table: osprey_session') : text) });
        expect(() => loadRegistry(child)).to.throw(/children\.badge\.table: table "osprey_session" is one of Osprey's own tables/);
        expect(loadRegistry(copies({ from: 'secrets', add: { 'mxsteal.yaml': steal('stolen_user') } })).get('MXSTEAL')).to.exist();
    });

    for (const database of testDatabases) {
        test(`a server does not start with one (${database.name})`, async () => {

            const dir = copies({ from: 'secrets', add: { 'mxsteal.yaml': steal('osprey_session') } });
            await expect(startTestServer(database, { demo: false, structures: dir })).to.reject(/table "osprey_session" is one of Osprey's own tables/);
        });
    }
});
