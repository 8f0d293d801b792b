import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;

// Nothing a client puts in a query string may produce a 500 or reach SQL as text: random strings, and strings
// built from the query languages' own alphabet and names, with NUL and lone surrogates among them, must be
// answered 200 or 400. OSPREY_FUZZ_RUNS raises
// the count (the default keeps the suite fast; 5,000 per parameter was run by hand).
const runs = Number(process.env.OSPREY_FUZZ_RUNS ?? 250);

const words = ['status', 'wonum', 'siteid', 'asset', 'location', 'woactivity', 'wplabor', 'regularhrs', 'reportdate', 'wopriority', 'description', 'rel', 'openwo', '_dbcount', '_dbsum', 'count', 'sum', 'and', 'or', 'not', 'in', 'true', '*', '%', '"APPR"', '"%a%"', '"[A,B]"', '1', '-2.5', '"2026-01-01"', ':p', 'spi:', '{', '}', '[', ']', '(', ')', '=', '!=', '<', '>=', ',', '.', '--', ' ', '+', '-', '\'', ';', 'drop table workorder', '\\', '"', '-3M', '+-1Y', '7D', 'W', '=2026-01-01T00:00:00Z', '..', ':', 'or', 'estdur', '={[', '](', ')}', 'APPR:WAPPR', '1..3'];
// The names Object.prototype holds (issue 34: savedQuery=constructor with an sqp: parameter answered 500).
const prototypeNames = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];
const grammar = Fc.array(Fc.constantFrom(...words, ...prototypeNames, ...prototypeNames.map((name) => `:${name}`)), { maxLength: 14 }).map((parts) => parts.join(''));
// Characters PostgreSQL cannot hold or that are not Unicode (NUL, lone surrogates), mixed into the others.
const hostile = Fc.array(Fc.oneof(Fc.constantFrom('\u0000', '\ud800', '\udfff', '\uffff', 'é', '😀', '"', '.', '{', '}'), Fc.string({ maxLength: 3 }), grammar), { maxLength: 8 }).map((parts) => parts.join(''));
const anything = Fc.oneof(Fc.string({ maxLength: 60 }), Fc.string({ unit: 'binary', maxLength: 40 }), grammar, hostile);

// encodeURIComponent refuses a lone surrogate: it is sent as the bytes a careless client would send (WTF-8).
const encode = (value: string): string => Array.from(value, (char) => {

    const code = char.charCodeAt(0);
    if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    }

    return encodeURIComponent(char);
}).join('');

// A stableId shaped like a real one: a body, a dot and a signature of its 43 characters, some beyond ASCII.
const stableIds = Fc.tuple(Fc.string({ maxLength: 20 }), Fc.string({ unit: Fc.constantFrom('a', 'Z', '-', '_', 'é', '\u0000', '😀'), minLength: 43, maxLength: 43 })).map(([body, signature]) => `${body}.${signature}`);

onEachDatabase(lab, 'fuzzing query parameters', { timeout: 120_000 }, (t) => {

    // gbfilter, stableId and the timeline's two halves only mean something next to the parameters they belong to.
    const context: Record<string, string> = { gbfilter: 'gbcols=siteid,status,count.*,sum.estdur&', stableId: 'stablepaging=1&', 'sqp:asset': 'savedQuery=WOBYASSET&', site: 'action=genreport&reportname=woassets.rptdesign&reportformat=json&', searchAttributes: 'oslc.searchTerms=pump&', tlrange: 'tlattribute=reportdate&', tlattribute: 'tlrange=-1M&', opmode: `oslc.where=${encodeURIComponent('status="APPR" and wopriority=1')}&`, gbrange: 'gbcols=siteid,status,wopriority,reportdate,estdur,count.*&' };
    for (const parameter of ['oslc.where', 'oslc.select', 'oslc.orderBy', 'gbcols', 'gbfilter', 'oslc.searchTerms', 'searchAttributes', 'distinct', 'savedQuery', 'sqp:asset', 'site', 'stableId', 'tlrange', 'tlattribute', 'opmode', 'gbrange']) {
        test(`${parameter} answers only 200 or 400`, async () => {

            await Fc.assert(Fc.asyncProperty(parameter === 'stableId' ? Fc.oneof(anything, stableIds) : anything, async (value) => {

                const res = await t.inject({ url: `/maximo/oslc/os/mxapiwodetail?oslc.pageSize=5&${context[parameter] ?? ''}${parameter}=${encode(value)}`, headers: wilson });
                if (res.statusCode !== 200 && res.statusCode !== 400) {
                    throw new Error(`${parameter}=${JSON.stringify(value)} answered ${res.statusCode}: ${res.payload}`);
                }
            }), { numRuns: runs });
        });
    }

    // Wherever a request carries a name, one of Object.prototype's is an unknown name: 400 (or 404 for a path).
    test('names Object.prototype holds, as parameter names, values and path segments, answer only 200, 400 or 404', async () => {

        const name = Fc.constantFrom(...prototypeNames);
        const templates: ((n: string) => string)[] = [
            (n) => `savedQuery=${n}`, (n) => `savedQuery=${n}&sqp:asset=1`, (n) => `savedquery=${n}&sqp:${n}=1`, (n) => `savedQuery=WOBYASSET&sqp:${n}=1`, (n) => `${n}=1`,
            (n) => `oslc.where=wonum=:${n}`, (n) => `oslc.where=${n}="x"`, (n) => `oslc.where=${n}{wonum="x"}`, (n) => `oslc.where=asset.${n}="x"`, (n) => `oslc.select=${n}`,
            (n) => `oslc.select=${n}{*}`, (n) => `oslc.select=asset.${n}`, (n) => `oslc.select=${n}._dbcount`, (n) => `oslc.orderBy=-${n}`, (n) => `distinct=${n}`, (n) => `gbcols=${n},count.*`,
            (n) => `gbcols=siteid,sum.${n}`, (n) => `gbcols=siteid,count.*&gbsortby=${n}`, (n) => `gbcols=siteid,count.*&gbfilter=${n}>1`, (n) => `oslc.searchTerms=pump&searchAttributes=${n}`,
            (n) => `tlattribute=${n}&tlrange=-1M`, (n) => `action=genreport&reportname=${n}&reportformat=json`, (n) => `action=genreport&reportname=woassets.rptdesign&reportformat=${n}`
        ];
        const paths: ((n: string) => string)[] = [(n) => `/maximo/oslc/os/${n}`, (n) => `/maximo/oslc/os/mxapiwodetail/${n}`, (n) => `/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAx/${n}`, (n) => `/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAx/getlist~${n}`, (n) => `/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAx/getlist~assetnum?savedQuery=${n}&sqp:x=1`, (n) => `/maximo/oslc/apimeta/${n}`, (n) => `/maximo/oslc/jsonschemas/${n}`];
        const urls = Fc.oneof(
            Fc.tuple(Fc.array(Fc.tuple(Fc.constantFrom(...templates), name), { minLength: 1, maxLength: 3 })).map(([parts]) => `/maximo/oslc/os/mxapiwodetail?oslc.pageSize=5&${parts.map(([template, n]) => template(encode(n))).join('&')}`),
            Fc.tuple(Fc.constantFrom(...paths), name).map(([path, n]) => path(encode(n)))
        );
        await Fc.assert(Fc.asyncProperty(urls, async (url) => {

            const res = await t.inject({ url, headers: wilson });
            if (![200, 400, 404].includes(res.statusCode)) {
                throw new Error(`${url} answered ${res.statusCode}: ${res.payload}`);
            }
        }), { numRuns: runs });
    });
});
