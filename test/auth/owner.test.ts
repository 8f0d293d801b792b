import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { ApiKeys } from '../../src/auth/api-keys';
import { loadRegistry } from '../../src/load-registry';
import { onEachDatabase } from '../helpers/experiments';
import { fixtureCopies, ownedNotes } from '../helpers/fixtures';
import { maxauth } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before } = lab;
const { expect } = Code;

// access.owner in any structure: users who are not administrators see, change and create only their records.
const notes = ownedNotes;

experiment('access.owner in YAML', () => {

    const copyFixture = fixtureCopies(lab);

    test('must name a stored attribute', () => {

        const dir = copyFixture({ add: { 'mxtestnote.yaml': notes.replace('owner: author', 'owner: writer') } });
        expect(() => loadRegistry(dir)).to.throw(/access\.owner.*"writer" is not a stored attribute/);
    });
});

onEachDatabase(lab, 'records kept to their owners', { settings: { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' }, fixture: { add: { 'mxtestnote.yaml': notes } } }, (t) => {

    const anna = maxauth('anna', 'anna-password');
    const ben = maxauth('ben', 'ben-password');
    const admin = maxauth('admin', 'admin-secret-1');
    const url = '/maximo/oslc/os/mxtestnote';

    before(async () => {

        await t.server.app.osprey.users.create({ userid: 'ANNA', password: 'anna-password', groups: ['EVERYONE'] });
        await t.server.app.osprey.users.create({ userid: 'BEN', password: 'ben-password', groups: ['EVERYONE'] });
    });

    test('creates in the caller\'s name, hides other users\' records, lets administrators see all', async () => {

        const mine = await t.inject({ method: 'POST', url, headers: { ...anna, properties: 'author,body' }, payload: { body: 'first' } });
        expect(mine.statusCode, mine.payload).to.equal(201);
        expect(mine.result.author).to.equal('ANNA');
        expect((await t.inject({ method: 'POST', url, headers: anna, payload: { body: 'named', author: 'anna' } })).statusCode).to.equal(201);
        const forged = await t.inject({ method: 'POST', url, headers: anna, payload: { body: 'forged', author: 'BEN' } });
        expect(forged.statusCode).to.equal(403);
        expect((await t.inject({ method: 'POST', url, headers: ben, payload: { body: 'bens' } })).statusCode).to.equal(201);

        const annaId = new URL(mine.headers.location as string).pathname;
        const asBen = (await t.inject({ url: `${url}?oslc.select=author,body`, headers: ben })).result.member;
        expect(asBen.map((note: any) => note.author)).to.equal(['BEN']);
        expect((await t.inject({ url: annaId, headers: ben })).statusCode).to.equal(404);
        expect((await t.inject({ method: 'PATCH', url: annaId, headers: ben, payload: { body: 'changed' } })).statusCode).to.equal(404);
        expect((await t.inject({ method: 'DELETE', url: annaId, headers: ben })).statusCode).to.equal(404);
        expect((await t.inject({ url: `${url}?distinct=author`, headers: ben })).result).to.equal(['BEN']);
        expect((await t.inject({ url: `${url}?distinct=author`, headers: admin })).result).to.equal(['ANNA', 'BEN']);
        expect((await t.inject({ method: 'PATCH', url: annaId, headers: anna, payload: { body: 'changed' } })).statusCode).to.equal(204);
    });
});

experiment('the API-key structure', () => {

    test('must keep its attributes, a computed active and the owner rule, or the server does not start', () => {

        const registry = (owner: string | undefined, names: string[]) => ({
            byObject: () => ({ file: 'keys.yaml', def: { access: { owner } }, root: { attributes: new Map(names.map((name) => [name, { persistent: true }])) } })
        }) as any;
        const all = ['userid', 'apikey', 'apikeyhash', 'expiration', 'expirationdate', 'creationdate', 'lastused'];
        expect(() => new ApiKeys({} as any, registry('userid', all.slice(1)), Buffer.alloc(32))).to.throw('keys.yaml: the API-key structure needs the attributes userid');
        expect(() => new ApiKeys({} as any, registry(undefined, all), Buffer.alloc(32))).to.throw('keys.yaml: the API-key structure needs access: owner: userid');
        expect(() => new ApiKeys({} as any, registry('userid', [...all, 'active']), Buffer.alloc(32))).to.throw('keys.yaml: the API-key attribute active is computed when a key is read; declare it persistent: false');
        expect(new ApiKeys({} as any, registry('userid', all), Buffer.alloc(32)).structure).to.exist();
    });
});
