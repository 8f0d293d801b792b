import type { Knex } from 'knex';

import type { Target } from './load';


// The files of the attachment scenarios (issue 36): the same bytes for Osprey and its baselines, made from a seed
// so every run sends and reads the same. They are printable ASCII, so a scenario's body (a string) is the file
// byte for byte.

export const fileSize = 1024 * 1024;

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

// `size` bytes from a small linear congruential generator: no two chunks of the file alike, so neither a
// compressing store nor a cache of repeated pages makes them cheaper than a real file.
export const fileText = (size: number, seed = 36): string => {

    const bytes = Buffer.allocUnsafe(size);
    let state = seed >>> 0;
    for (let i = 0; i < size; ++i) {
        state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
        bytes[i] = alphabet.charCodeAt(state >>> 26);
    }

    return bytes.toString('latin1');
};

export const uploadHeaders = (name: string) => ({ 'content-type': 'application/octet-stream', slug: name, 'x-document-meta': 'FILE/Attachments' });

// A document uploaded to one record before a download scenario or a long download runs, found again by its href.
export class UploadedFile {

    href?: string;

    constructor(readonly size: number, private readonly name: string) { }

    async upload(osprey: Target, recordPath: string): Promise<string> {

        const res = await fetch(`${osprey.url}${recordPath}/doclinks`, { method: 'POST', headers: { ...osprey.headers, ...uploadHeaders(this.name) }, body: fileText(this.size) });
        const body = await res.text();
        const location = res.headers.get('location');
        if (res.status !== 201 || !location) {
            throw new Error(`The upload of ${this.name} before the scenario answered ${res.status}: ${body.slice(0, 300)}`);
        }

        this.href = new URL(location, osprey.url).pathname;
        return this.href;
    }

    path(): string {

        if (!this.href) {
            throw new Error(`${this.name} was downloaded before it was uploaded (Scenario.prepare).`);
        }

        return this.href;
    }
}

// The documents the runs uploaded, gone with their bytes: the generated data set holds none (dataset.ts
// resetDataset), and a run of uploads stores hundreds of megabytes.
export const deleteDocuments = async (knex: Knex): Promise<void> => {

    for (const table of ['osprey_doclink', 'osprey_docchunk', 'osprey_docupload', 'osprey_docgone']) {
        if (await knex.schema.hasTable(table)) {
            await knex(table).delete();
        }
    }
};
