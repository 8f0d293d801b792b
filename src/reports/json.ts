import type { DocumentsOfRecord } from './attachments';
import type { ReportColumn } from './columns';
import { columnValue } from './columns';


// A report as JSON: what it is, its columns, and one member per record holding the column values by name; with
// attachment=1 each member's `attachments` lists its documents (none: an empty array).
export const jsonChunks = async function* (head: Record<string, unknown>, columns: readonly ReportColumn[], batches: AsyncIterable<readonly Record<string, unknown>[]>, documents?: DocumentsOfRecord): AsyncGenerator<string> {

    const described = columns.map(({ name, title }) => ({ name, title }));
    yield `${JSON.stringify({ ...head, columns: described }).slice(0, -1)},"member":[`;
    let first = true;
    for await (const records of batches) {
        const rows = records.map((record) => JSON.stringify({ ...Object.fromEntries(columns.map((column) => [column.name, columnValue(record, column)])), ...documents ? { attachments: documents(record) } : {} }));
        if (rows.length) {
            yield `${first ? '' : ','}${rows.join(',')}`;
            first = false;
        }
    }

    yield ']}';
};
