import type { Readable } from 'node:stream';

import type { ResourceRequest } from '../request';
import type { ReportDef } from '../structures/definition';
import type { Registry, Row, Structure } from '../structures/registry';
import type { ReportAttachment } from './attachments';


// Report renderers (issue 35): a YAML report may name a plugin's `handler` instead of `columns`; the plugin
// registers it with `server.registerReportRenderer(name, spec)`, and genreport hands it the report, the request
// and the records the request names (the same where, owner rules and order as a built-in report, read in pages).
// A report naming a renderer nobody registered stops the start (checkReportRenderers).

export interface ReportCall {
    /** The request value genreport came in with (user, structure, query). */
    readonly req: ResourceRequest;
    readonly report: ReportDef;
    readonly structure: Structure;
    /** The reportformat asked for, in lower case: one of the renderer's formats (the first when none was asked). */
    readonly format: string;
    /** attachment=1 was asked for (IBM's guide: "add attachments to the generated report"): list each record's
     * attached documents, which `documents` answers. The structure has attachments, or genreport refused it. */
    readonly attachment: boolean;
    /** The records the request names, a page at a time: rendered with the report's `columns` when it declares
     * them, else with every attribute of the record (as a read without a select). Each call reads them afresh. */
    readonly records: () => AsyncIterable<Row[]>;
    /** With attachment=1 only: the documents attached to a record that `records()` yielded (that very object),
     * oldest first, none when it has none. Each page's are read with the page, in one statement; a report lists
     * at most OSPREY_MAX_ANSWER_ROWS documents (more is a 400 before render is called). */
    readonly documents?: (record: Row) => readonly ReportAttachment[];
}

/** What a renderer answers: the document as a stream or whole, its content type and, optionally, its
 * Content-Disposition (by default `attachment; filename="{report}.{format}"`: a report is a file to keep). */
export interface RenderedReport {
    readonly stream?: Readable;
    readonly buffer?: Buffer | string;
    readonly type: string;
    readonly disposition?: string;
}

export interface ReportRendererSpec {
    /** The reportformat values it renders, the first the default (`['html']`); any other is refused with a 400. */
    readonly formats: readonly string[];
    readonly render: (call: ReportCall) => RenderedReport | Promise<RenderedReport>;
    readonly description?: string;
}

export interface RegisteredRenderer {
    readonly name: string;
    readonly spec: ReportRendererSpec;
}

export class ReportRendererError extends Error { }

const validName = /^[A-Za-z_][\w.-]{0,99}$/;
const validFormat = /^[a-z0-9][a-z0-9.+-]{0,19}$/;

export class ReportRenderers {

    readonly #byName = new Map<string, RegisteredRenderer>();

    // A name registered twice is a mistake of the plugins, not a replacement: it stops the start.
    register(name: string, spec: ReportRendererSpec): RegisteredRenderer {

        if (typeof name !== 'string' || !validName.test(name)) {
            throw new ReportRendererError(`A report renderer's name is a word (${JSON.stringify(name)} is not).`);
        }

        if (typeof spec?.render !== 'function') {
            throw new ReportRendererError(`The report renderer ${name} has no render function.`);
        }

        if (!Array.isArray(spec.formats) || spec.formats.length === 0 || !spec.formats.every((format) => typeof format === 'string' && validFormat.test(format))) {
            throw new ReportRendererError(`The report renderer ${name} needs formats: the reportformat values it renders, in lower case (['html']).`);
        }

        const key = name.toLowerCase();
        if (this.#byName.has(key)) {
            throw new ReportRendererError(`The report renderer ${name} is registered twice.`);
        }

        const registered = { name, spec };
        this.#byName.set(key, registered);
        return registered;
    }

    find(name: string): RegisteredRenderer | undefined {

        return this.#byName.get(name.toLowerCase());
    }

    names(): string[] {

        return [...this.#byName.values()].map((renderer) => renderer.name);
    }
}

export class UnregisteredRendererError extends Error { }

// Every report a YAML declares with a handler must name a registered renderer: called when the server starts,
// after every plugin registered, and by `npm run validate`.
export const checkReportRenderers = (renderers: ReportRenderers, registry: Registry): void => {

    for (const structure of registry.list()) {
        for (const report of structure.def.reports) {
            if (report.handler !== undefined && !renderers.find(report.handler)) {
                const known = renderers.names();
                throw new UnregisteredRendererError(`${structure.file}: the report ${report.name} of ${structure.name} names the renderer ${report.handler}, which no plugin registered (server.registerReportRenderer); the registered renderers are: ${known.length ? known.join(', ') : 'none'}.`);
            }
        }
    }
};
