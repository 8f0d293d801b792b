import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type * as Hapi from '@hapi/hapi';

import { fileSize, fileText } from './attachment-files';


// Baseline (b) of the attachment scenarios: the same bytes streamed through plain hapi routes, with no database,
// no authentication and no check of the bytes. An upload's body is read to its end as it comes (hapi's stream,
// as Osprey's route takes it) and answered with a document's size; a download answers the file from memory in
// chunks of 256 KB, the size of Osprey's stored chunks. What Osprey costs beyond it is its store: the chunk rows'
// transactions and their SHA-256 checks.

const chunk = 256 * 1024;

export const attachmentRoutes = (): Hapi.ServerRoute[] => {

    const file = Buffer.from(fileText(fileSize), 'latin1');
    let documents = 1_000_000;
    return [
        {
            method: 'POST', path: '/b/attach-upload/{rest*}',
            options: {
                payload: { parse: false, output: 'stream', maxBytes: Number.MAX_SAFE_INTEGER, timeout: false },
                handler: async (request, h) => {

                    let size = 0;
                    const sink = new Writable({
                        write: (data: Buffer, _encoding, done) => {

                            size += data.length;
                            done();
                        }
                    });
                    await pipeline(request.payload as Readable, sink);
                    const id = ++documents;
                    const href = `http://${request.info.host}${request.path}/${id}`;
                    return h.response({ href, identifier: String(id), attachmentSize: size }).code(201).header('location', href);
                }
            }
        },
        {
            method: 'GET', path: '/b/attach-download/{rest*}', handler: (_request, h) => {

                const pieces = Array.from({ length: Math.ceil(file.length / chunk) }, (_, i) => file.subarray(i * chunk, (i + 1) * chunk));
                const response = h.response(Readable.from(pieces, { objectMode: false })).type('application/octet-stream').header('content-length', String(file.length));
                return response.compressed('identity');
            }
        }
    ];
};
