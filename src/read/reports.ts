import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

import type { Knex } from 'knex';

import { maximoError } from '../errors/maximo-error';
import { reportLayout, type ReportLayout } from '../reports/columns';
import { csvLines } from '../reports/csv';
import { jsonChunks } from '../reports/json';
import { datetimeText, defaultFormats, type ReportFormats } from '../reports/format';
import { pdfStream } from '../reports/pdf';
import { flagOf } from '../http/flags';
import { checkAttachment, reportDocuments, type ReportDocuments } from '../reports/attachments';
import type { ReportRendererSpec } from '../reports/renderers';
import type { ResourceRequest } from '../request';
import type { ReportDef } from '../structures/definition';
import { own } from '../structures/own';
import { parameterNames } from './parse/params';
import { parseWhere } from './parse/where';
import { declaredAttribute } from './plan/attribute-names';
import { orderColumn, orderColumns, orderedColumnNames, type OrderColumn } from './plan/ordering';
import { renderColumns } from './plan/render-columns';
import { everythingPlan } from './plan/select-plan';
import { applyAfter, applyOrder, selectOrderValues } from './compile/compile-order';
import { filtered } from './execute/filter';
import type { Row } from './execute/find';
import { serializeOptions } from './serialize/options';
import { memberId, serializeRows } from './serialize/serialize';


// Reports (CONTRACT §6), the built-in global actions of every structure: `?action=listreports` lists the
// reports its YAML declares, `?action=genreport&reportname=…&reportformat=pdf|csv|json` renders one over the
// records the request names (oslc.where, oslc.orderBy, and the report's own where, whose :parameters are query
// parameters of the same name). The records are read in keyset pages and the document is streamed as they
// come, so a report of any size holds one page of records in memory.

// Both actions run from the collection's GET, which has checked the read right.
export const listReports = (req: ResourceRequest, base: string): Row[] => {

    const { structure } = req;
    return structure.def.reports.map((report) => {

        // The parameters its where needs, which its genreport link answers only with (&name=…), as apimeta lists
        // a saved query's.
        const params = report.where ? parameterNames(parseWhere(report.where, `report ${report.name}`)) : [];
        return { reportname: report.name, description: report.title, genreport: `${base}?action=genreport&reportname=${encodeURIComponent(report.name)}`, ...params.length ? { params } : {} };
    });
};

const formatTypes = {
    pdf: { type: 'application/pdf', extension: 'pdf' },
    csv: { type: 'text/csv; charset=utf-8', extension: 'csv' },
    json: { type: 'application/json; charset=utf-8', extension: 'json' }
} as const;

// Rows per statement of a report: a report holds at most two batches (the one it renders, the one read ahead).
// Each batch costs a statement built with knex and a trip to a reader thread and back (two thread wake-ups);
// 1,000 rows cost a 10,000-row CSV report about 6 % less CPU than 500 (2026-11-28). Larger batches were no
// cheaper: 2,000 rows took a reader thread longer per row than 500 (its young heap).
export const batchSize = 1000;

const reportOf = (req: ResourceRequest): ReportDef => {

    const { structure } = req;
    const name = req.read.reportName;
    const report = structure.def.reports.find((candidate) => candidate.name === name);
    if (!report) {
        const known = structure.def.reports.map((candidate) => candidate.name);
        const which = known.length ? `one of ${known.join(', ')}` : 'none: it declares no reports';
        throw maximoError('badRequest', `${name === undefined ? 'genreport needs reportname' : `${name} is not a report of ${structure.name}`}; its reports are ${which}.`);
    }

    return report;
};

// The report's own where, with its parameters from the query parameters of the same name.
const reportWhere = (req: ResourceRequest, report: ReportDef) => {

    if (!report.where) {
        return undefined;
    }

    const where = parseWhere(report.where, `report ${report.name}`);
    const params: Record<string, string> = {};
    for (const name of parameterNames(where)) {
        const value = req.read.parameters[name];
        if (value === undefined) {
            throw maximoError('badRequest', `The report ${report.name} needs the parameter ${name} (&${name}=…).`);
        }

        // PostgreSQL cannot compare text holding NUL (as in every query parameter, src/read/parse/lexer.ts).
        if (value.includes('\u0000')) {
            throw maximoError('badRequest', `The parameter ${name} of the report ${report.name} holds a NUL character.`);
        }

        params[name] = value;
    }

    return { where, params, parameter: `report ${report.name}` };
};

// The records in pages of `batchSize`, each page the rows after the last one read (keyset paging), so each row is
// read once and in order whatever is written meanwhile. The next page is asked for as soon as a page's rows are
// in, before this one is serialized and rendered: where reads run on a reader thread (SQLite), the thread reads
// while the event loop renders, and a report's time is the longer of the two rather than their sum.
// With attachment=1 the documents of each page's records are read once the page is in (../reports/attachments.ts).
const recordBatches = async function* (req: ResourceRequest, base: string, layout: Pick<ReportLayout, 'plan'>, rows: Knex.QueryBuilder, order: readonly OrderColumn[], documents?: ReportDocuments): AsyncGenerator<Row[]> {

    const { osprey: { db, kind }, structure } = req;
    // A report streams any number of rows, a page at a time: no answer's row limit. Its columns never show a
    // record's href or rowstamp, so none is made, save the hrefs a child collection's links are built on.
    const options = { ...serializeOptions(req), answerRows: undefined, rowstamps: false };
    const hrefs = layout.plan.links.some(({ link }) => link.child);
    // The columns its layout renders and its order reads, not every stored one: on SQLite each batch comes from a
    // reader thread, and a row's every column is copied across (src/db/read-workers.ts).
    const columns = renderColumns(structure.root, layout.plan, orderedColumnNames(order));
    const selected = columns ? columns.map((column) => `q0.${column}`) : ['q0.*'];
    const read = (after: unknown[] | undefined): Promise<Row[]> => {

        const query = applyOrder(selectOrderValues(rows.clone(), kind, 'q0', order), kind, 'q0', order);
        return Promise.resolve((after ? applyAfter(query, kind, 'q0', order, after) : query).select(selected).limit(batchSize) as unknown as Promise<Row[]>);
    };

    let next: Promise<Row[]> | undefined = read(undefined);
    let listed = 0;
    try {
        while (next) {
            const page: Row[] = await next;
            next = page.length < batchSize ? undefined : read(order.map(({ key }) => page[page.length - 1]![key] ?? null));
            // A page is serialized and rendered between two turns of the event loop (src/slices.ts).
            await nextTurn();
            const records = await serializeRows(db, layout.plan, page, hrefs ? page.map((row) => `${base}/${memberId(structure.root, row)}`) : page.map(() => ''), options);
            if (documents) {
                listed += await documents.page(db, structure, page, records, listed);
            }

            yield records;
        }
    }
    finally {
        // A report left before its end (the client went away, the renderer failed) still ends the read it began.
        next?.catch(() => undefined);
    }
};

// A report as the answer carries it: the document streamed as its records are read, its content type and its
// content-disposition. A report is a file to keep (IBM's guide: the PDF "is returned as a downloadable file"), so
// it is `attachment` with the file's name, whatever the format; a plugin's renderer may answer another.
export interface ReportDocument {
    readonly stream: Readable;
    readonly type: string;
    readonly disposition: string;
}

// A report a plugin renders (`handler:`): its renderer is given the records the request names, rendered with the
// report's columns if it declares any, else as a read without a select.
const rendered = async (req: ResourceRequest, base: string, report: ReportDef, renderer: ReportRendererSpec): Promise<ReportDocument> => {

    const { structure, read } = req;
    const format = (read.reportFormat ?? renderer.formats[0]!).toLowerCase();
    if (!renderer.formats.includes(format)) {
        throw maximoError('badRequest', `reportformat ${format} is not one the report ${report.name} renders: ${renderer.formats.join(', ')}.`);
    }

    const plan = report.columns ? reportLayout(req.osprey.registry, structure, report, { user: req.user }).plan : everythingPlan(structure.root);
    const also = reportWhere(req, report);
    const rows = filtered(req, structure, also ? { also } : {});
    const order = orderColumns(structure.root, read.orderBy);
    const documents = await reportDocuments(req, base, rows);
    const records = () => recordBatches(req, base, { plan }, rows, order, documents);
    const answer = await renderer.render({ req, report, structure, format, attachment: documents !== undefined, records, ...documents ? { documents: documents.of } : {} });
    if (typeof answer?.type !== 'string' || (answer.stream === undefined) === (answer.buffer === undefined)) {
        throw new Error(`The report renderer ${report.handler} answered no document: it answers { stream or buffer, type }.`);
    }

    const file = `${report.name.replace(/\.rptdesign$/i, '')}.${format}`;
    return {
        // hapi sends bytes: an object-mode stream (Readable.from(lines) makes one) is read as its strings or buffers.
        stream: answer.stream ? (answer.stream.readableObjectMode ? Readable.from(answer.stream, { objectMode: false }) : answer.stream) : Readable.from([Buffer.from(answer.buffer!)], { objectMode: false }),
        type: answer.type,
        disposition: answer.disposition ?? `attachment; filename="${file}"`
    };
};

// The request's where as the report says it covers: with opmodeor=1 or opmode=or its and-ed terms were or-ed
// (filter.ts), which the text alone would not say.
const whereCovered = (read: ResourceRequest['read']): string | undefined => {

    const or = read.opmodeor || read.opmode?.trim().toLowerCase() === 'or';
    return read.where && or ? `${read.where} (opmode or: its terms or-ed)` : read.where;
};

// The PDF's heading under its title: what it covers (the report's parameters, as `site = BEDFORD`, the
// request's where and order), then when, in the report's time zone, and for whom.
const headLines = (req: ResourceRequest, report: ReportDef, params: Record<string, string> | undefined, formats: ReportFormats, now: Date, listing: boolean): string[] => {

    const { structure, read } = req;
    const covers = [
        ...Object.entries(params ?? {}).map(([name, value]) => `${name} = ${value}`),
        ...read.where ? [`where ${whereCovered(read)}`] : [],
        ...read.orderBy ? [`order ${read.orderBy}`] : [],
        ...report.groupBy ? [`grouped by ${report.groupBy}`] : []
    ];
    return [
        `${structure.name} · ${report.name}${listing ? ' · with attachments' : ''}`,
        ...covers.length ? [covers.join(' · ')] : [],
        `Generated ${datetimeText(now, 'YYYY-MM-DD HH:mm', formats.timeZone)} (${formats.timeZone}) by ${req.user.userid}`
    ];
};

export const generateReport = async (req: ResourceRequest, base: string): Promise<ReportDocument> => {

    const { structure, read } = req;
    checkAttachment(req);
    const report = reportOf(req);
    if (report.handler !== undefined) {
        return await rendered(req, base, report, req.osprey.reportRenderers.find(report.handler)!.spec);
    }

    const formatName = (read.reportFormat ?? 'pdf').toLowerCase();
    const format = own(formatTypes, formatName);
    if (!format) {
        throw maximoError('badRequest', `reportformat ${formatName} is not one of pdf, csv, json.`);
    }

    // bom=1|0 (any other value is refused with the other parameters, src/http/parameters.ts), else the YAML's; only a
    // CSV has one.
    if (req.read.parameters.bom !== undefined && formatName !== 'csv') {
        throw maximoError('badRequest', `bom is a CSV report's byte-order mark; a ${formatName} report has none: leave bom out, or ask for reportformat=csv.`);
    }

    const bom = req.read.parameters.bom === undefined ? report.bom === true : flagOf(req.read.parameters.bom) === true;
    const layout = reportLayout(req.osprey.registry, structure, report, { user: req.user });
    const also = reportWhere(req, report);
    const rows = filtered(req, structure, also ? { also } : {});
    const order = orderColumns(structure.root, read.orderBy);
    // Grouped records come ordered by their group first, then as asked.
    const grouped = report.groupBy === undefined ? order : [orderColumn(structure.root, declaredAttribute(structure.root, report.groupBy)!, 'asc', 'groupBy', 1), ...order.filter(({ attr }) => attr.name !== report.groupBy)];
    const documents = await reportDocuments(req, base, rows);
    const batches = recordBatches(req, base, layout, rows, grouped, documents);
    // The first page is read before the answer starts, so that a query the database refuses is still an error
    // answer and not a document cut short.
    const first = await batches.next();
    const records = (async function* () {

        yield first.value as Row[];
        yield* batches;
    })();

    const where = whereCovered(read);
    const now = new Date();
    const generated = now.toISOString();
    const listing = documents?.of;
    // The report's own patterns over the defaults, its zone over the server's.
    const patterns = Object.entries({ dateFormat: report.dateFormat, datetimeFormat: report.datetimeFormat }).filter(([, pattern]) => pattern !== undefined);
    const formats: ReportFormats = { ...defaultFormats, ...Object.fromEntries(patterns), timeZone: report.timezone ?? req.osprey.options.reportTimezone };
    const stream = formatName === 'csv' ? Readable.from(csvLines(layout.columns, records, { bom, formats, documents: listing }), { objectMode: false }) :
        formatName === 'json' ? Readable.from(jsonChunks({ reportname: report.name, title: report.title, structure: structure.name, generated, ...(where ? { where } : {}) }, layout.columns, records, listing), { objectMode: false }) :
            pdfStream({ title: report.title, lines: headLines(req, report, also?.params, formats, now, listing !== undefined), footer: `${report.title} · Osprey` }, layout.columns, records, { formats, groupBy: report.groupBy, totals: report.totals, documents: listing });
    const file = `${report.name.replace(/\.rptdesign$/i, '')}.${format.extension}`;
    return { stream, type: format.type, disposition: `attachment; filename="${file}"` };
};
