import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Knex from 'knex';

import { loadRegistry } from '../../src/load-registry';
import { applyWhere, type WhereScope } from '../../src/read/compile/compile-where';
import { QueryError } from '../../src/read/parse/query-error';
import { parseWhere } from '../../src/read/parse/where';
import { demoStructures } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const registry = loadRegistry(demoStructures);
const pg = Knex({ client: 'pg' });
const sqlite = Knex({ client: 'better-sqlite3', useNullAsDefault: true });

// Compiles without a connection: the SQL text and its bindings are what this stage produces.
const compile = (os: string, where: string, params: Record<string, unknown> = {}, kind: WhereScope['kind'] = 'postgresql') => {

    const structure = registry.get(os)!;
    const knex = kind === 'postgresql' ? pg : sqlite;
    const query = knex({ q0: structure.root.table }).select('q0.*');
    applyWhere(query, { registry, kind, parameter: 'oslc.where', params, structure, object: structure.root, alias: 'q0', aliases: { next: 0 }, reach: undefined }, parseWhere(where));
    const { sql, bindings } = query.toSQL();
    return { sql: sql.replace(/^select ["`]q0["`]\.\* from ["`]\w+["`] as ["`]q0["`] where /, ''), bindings };
};

experiment('compiling oslc.where to SQL', () => {

    test('binds every value, typed by its attribute', () => {

        expect(compile('MXAPIASSET', 'isrunning=true and isrunning!=0 and installdate>="2020-01-02" and purchaseprice<"1000.5"')).to.equal({
            sql: '(("q0"."isrunning" = ?) and ("q0"."isrunning" <> ?) and ("q0"."installdate" >= ?) and ("q0"."purchaseprice" < cast(? as numeric)))',
            bindings: [true, false, '2020-01-02', 1000.5]
        });
        expect(compile('MXAPIWODETAIL', 'reportdate<"2026-01-01T10:00:00"').bindings).to.equal(['2026-01-01T10:00:00.000Z']);
        expect(compile('MXAPIWODETAIL', 'reportdate<"2026-01-01T10:00:00-05:00"').bindings).to.equal(['2026-01-01T15:00:00.000Z']);
        expect(compile('MXAPIPERSON', 'primaryemail="A@B"').bindings).to.equal(['A@B']);
    });

    test('text order is binary on PostgreSQL, as on SQLite', () => {

        expect(compile('MXAPIWODETAIL', 'description>"M"').sql).to.equal('"q0"."description" collate "C" > ?');
        expect(compile('MXAPIWODETAIL', 'description>"M"', {}, 'sqlite').sql).to.equal('`q0`.`description` > ?');
        expect(compile('MXAPIWODETAIL', 'description="M"').sql).to.equal('"q0"."description" = ?');
    });

    test('like escapes _ and backslash', () => {

        expect(compile('MXAPIWODETAIL', 'description!="%a_b\\\\%"')).to.equal({ sql: 'not lower("q0"."description" collate "default") like lower(?) escape \'\\\'', bindings: ['%a\\_b\\\\%'] });
    });

    test('parameters; a null parameter tests for null', () => {

        expect(compile('MXAPIWODETAIL', 'siteid=:site', { site: 'bedford' }).bindings).to.equal(['BEDFORD']);
        expect(compile('MXAPIWODETAIL', 'siteid=:site', { site: null }).sql).to.equal('"q0"."siteid" is null');
        expect(compile('MXAPIWODETAIL', 'siteid!=:site', { site: null }).sql).to.equal('"q0"."siteid" is not null');
        expect(compile('MXAPIWODETAIL', 'siteid>:site', { site: undefined }).sql).to.equal('1 = 0');
        expect(compile('MXAPIWODETAIL', 'wopriority in [:a, 2.5]', { a: '1' })).to.equal({ sql: '"q0"."wopriority" in (cast(? as bigint), cast(? as numeric))', bindings: [1, 2.5] });
        expect(compile('MXAPIWODETAIL', 'wopriority!="[1,2]"', {}, 'sqlite')).to.equal({ sql: '`q0`.`wopriority` not in (?, ?)', bindings: [1, 2] });
    });

    test('hops become EXISTS subqueries', () => {

        expect(compile('MXAPIWODETAIL', 'asset.location.status="OPERATING"').sql).to.equal('exists (select 1 from "asset" as "q1" where "q1"."assetnum" = "q0"."assetnum" and "q1"."siteid" = "q0"."siteid" and exists (select 1 from "locations" as "q2" where "q2"."location" = "q1"."location" and "q2"."siteid" = "q1"."siteid" and "q2"."status" = ?))');
        expect(compile('MXAPIWODETAIL', 'woactivity{status="COMP"}').sql).to.equal('exists (select 1 from "woactivity" as "q1" where "q1"."parent" = "q0"."wonum" and "q1"."siteid" = "q0"."siteid" and "q1"."status" = ?)');
    });

    test('refuses what it cannot compile, with the position', () => {

        const cases: [string, string, Record<string, unknown>?][] = [
            ['memo="x"', 'WORKORDER.memo is not stored (persistent: false), so it cannot filter, sort or group at column 1'],
            ['woactivity.asset.status="x"', 'asset is not an attribute, child object or relationship of WOACTIVITY at column 1'],
            ['wopriority=true', 'wopriority is a number; true is not'],
            ['status=true', 'status is text; true is a truth value: quote a text value ("true")'],
            ['description in ["a",false]', 'description is text; false is a truth value: quote a text value ("false")'],
            ['wopriority=:p', 'wopriority is a number; "" is not', { p: '' }],
            ['reportdate=5', 'reportdate is a date; 5 is not'],
            ['reportdate<"+010000-01-01T00:00:00Z"', 'reportdate is a date; "+010000-01-01T00:00:00Z" is not'],
            // A day its month does not have is not rolled into the next month, nor a date read loosely.
            ['reportdate<="2025-02-30"', 'reportdate is a date; "2025-02-30" is not'],
            ['reportdate<="2025-04-31T00:00:00Z"', 'reportdate is a date; "2025-04-31T00:00:00Z" is not'],
            ['reportdate>="2025-1-1"', 'reportdate is a date; "2025-1-1" is not'],
            ['reportdate>="2025-13-01"', 'reportdate is a date; "2025-13-01" is not'],
            ['reportdate>="Jan 1 2025"', 'reportdate is a date; "Jan 1 2025" is not'],
            ['installdate>"-000001-01-01"', 'installdate is not an attribute of WORKORDER'],
            ['asset.isrunning="maybe"', 'isrunning is true or false; "maybe" is not'],
            ['schedstart="%1%"', 'schedstart is not text; "%" patterns apply to text attributes at column 1']
        ];
        for (const [where, message, params] of cases) {
            expect(() => compile('MXAPIWODETAIL', where, params), where).to.throw(QueryError, `oslc.where: ${message}${message.includes('column') ? '' : ' at column 1'}`);
        }
    });
});
