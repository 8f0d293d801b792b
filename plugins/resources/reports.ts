import { Readable } from 'node:stream';

import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';

import { maximoError } from '../../src/errors/maximo-error';
import { parameterNames } from '../../src/read/parse/params';
import { parseWhere } from '../../src/read/parse/where';
import type { Row } from '../../src/read/execute/find';
import { applyAfter, applyOrder } from '../../src/read/compile/compile-order';
import { orderColumns, type OrderColumn } from '../../src/read/plan/ordering';
import { memberId, serializeRows } from '../../src/read/serialize/serialize';
import { reportLayout, type ReportLayout } from '../../src/reports/columns';
import { csvLines } from '../../src/reports/csv';
import { jsonChunks } from '../../src/reports/json';
import { pdfStream } from '../../src/reports/pdf';
import type { ReportDef } from '../../src/structures/definition';
import { own } from '../../src/structures/own';
import type { Structure } from '../../src/structures/registry';
import { filtered } from './filter';
import { collectionHref, flag, serializeOptions, text } from './request';


// Reports (CONTRACT §6), the built-in global actions of every structure: `?action=listreports` lists the
// reports its YAML declares, `?action=genreport&reportname=…&reportformat=pdf|csv|json` renders one over the
// records the request names (oslc.where, oslc.orderBy, and the report's own where, whose :parameters are query
// parameters of the same name). The records are read in keyset pages and the document is streamed as they
// come, so a report of any size holds one page of records in memory.

// Both actions run from the collection's GET, which has checked the read right.
export const listReports = (request: Hapi.Request, structure: Structure): Row[] => {

    const base = collectionHref(request, structure);
    return structure.def.reports.map((report) => ({ reportname: report.name, description: report.title, genreport: `${base}?action=genreport&reportname=${encodeURIComponent(report.name)}` }));
};

const formats = {
    pdf: { type: 'application/pdf', extension: 'pdf' },
    csv: { type: 'text/csv; charset=utf-8', extension: 'csv' },
    json: { type: 'application/json; charset=utf-8', extension: 'json' }
} as const;

const batchSize = 500;

const reportOf = (request: Hapi.Request, structure: Structure): ReportDef => {

    const name = text(request.query.reportname);
    const report = structure.def.reports.find((candidate) => candidate.name === name);
    if (!report) {
        const known = structure.def.reports.map((candidate) => candidate.name);
        const which = known.length ? `one of ${known.join(', ')}` : 'none: it declares no reports';
        throw maximoError('badRequest', `${name === undefined ? 'genreport needs reportname' : `${name} is not a report of ${structure.name}`}; its reports are ${which}.`);
    }

    return report;
};

// The report's own where, with its parameters from the query parameters of the same name.
const reportWhere = (request: Hapi.Request, report: ReportDef) => {

    if (!report.where) {
        return undefined;
    }

    const where = parseWhere(report.where, `report ${report.name}`);
    const params: Row = {};
    for (const name of parameterNames(where)) {
        const value = text(request.query[name]);
        if (value === undefined) {
            throw maximoError('badRequest', `The report ${report.name} needs the parameter ${name} (&${name}=…).`);
        }

        params[name] = value;
    }

    return { where, params, parameter: `report ${report.name}` };
};

// The records in pages of `batchSize`, each page the rows after the last one read (keyset paging).
const recordBatches = async function* (request: Hapi.Request, structure: Structure, layout: ReportLayout, rows: Knex.QueryBuilder, order: readonly OrderColumn[]): AsyncGenerator<Row[]> {

    const { db, kind } = request.server.app.osprey;
    const base = collectionHref(request, structure);
    const options = serializeOptions(request);
    let after: unknown[] | undefined;
    for (;;) {
        const query = applyOrder(rows.clone(), kind, 'q0', order);
        const page = await (after ? applyAfter(query, kind, 'q0', order, after) : query).select('q0.*').limit(batchSize) as Row[];
        yield await serializeRows(db, layout.plan, page, page.map((row) => `${base}/${memberId(structure.root, row)}`), options);
        if (page.length < batchSize) {
            return;
        }

        after = order.map(({ attr }) => page[page.length - 1]![attr.name] ?? null);
    }
};

export const generateReport = async (request: Hapi.Request, h: Hapi.ResponseToolkit, structure: Structure): Promise<Hapi.ResponseObject> => {

    const report = reportOf(request, structure);
    const formatName = (text(request.query.reportformat) ?? 'pdf').toLowerCase();
    const format = own(formats, formatName);
    if (!format) {
        throw maximoError('badRequest', `reportformat ${formatName} is not one of pdf, csv, json.`);
    }

    const osprey = request.server.app.osprey;
    const layout = reportLayout(osprey.registry, structure, report);
    const also = reportWhere(request, report);
    const rows = filtered(request, structure, also ? { also } : {});
    const order = orderColumns(structure.root, text(request.query['oslc.orderBy']));
    const batches = recordBatches(request, structure, layout, rows, order);
    // The first page is read before the answer starts, so that a query the database refuses is still an error
    // answer and not a document cut short.
    const first = await batches.next();
    const records = (async function* () {

        yield first.value as Row[];
        yield* batches;
    })();

    const where = text(request.query['oslc.where']);
    const generated = new Date().toISOString();
    const user = request.auth.credentials.user!.userid;
    const stream = formatName === 'csv' ? Readable.from(csvLines(layout.columns, records), { objectMode: false }) :
        formatName === 'json' ? Readable.from(jsonChunks({ reportname: report.name, title: report.title, structure: structure.name, generated, ...(where ? { where } : {}) }, layout.columns, records), { objectMode: false }) :
            pdfStream({ title: report.title, subtitle: `${structure.name} · ${report.name}${where ? ` · where ${where}` : ''} · ${generated} · ${user}`, footer: `${report.title} · Osprey` }, layout.columns, records);
    const disposition = flag(text(request.query.attachment)) ? 'attachment' : 'inline';
    const file = `${report.name.replace(/\.rptdesign$/i, '')}.${format.extension}`;
    return h.response(stream).type(format.type).header('content-disposition', `${disposition}; filename="${file}"`);
};
