import { encodeBase64Id } from '../src/structures/resource-id';
import { fileText, UploadedFile, uploadHeaders } from './attachment-files';
import type { Long } from './responsiveness';


// Issue 36 item 4: a 50 MB upload and a 50 MB download stream through without holding the file (the server's RSS
// grows by less than 64 MB), and do not hold up other requests for more than 100 ms: /health beside each, and a
// small write (a PATCH of a work order's description) beside an upload, each started every 10 ms.

const mb = 50;
const size = mb * 1024 * 1024;
const collection = '/maximo/oslc/os/mxapiwodetail';
// Work orders of BEDFORD (the generator gives it the even numbers) that the merge (BEDFORD 1000) and the 1 MB
// download do not use; the data set's reset deletes their documents.
const owner = `${collection}/${encodeBase64Id(['BEDFORD', '1002'])}`;
const patched = `${collection}/${encodeBase64Id(['BEDFORD', '1004'])}`;

// Built when a measurement asks for it, not whenever the list of long requests is read.
let body: Buffer | undefined;
const bigFile = () => (body ??= Buffer.from(fileText(size, 50), 'latin1'));

const upload: Omit<Long, 'name' | 'title'> = {
    method: 'POST',
    path: `${owner}/doclinks`,
    headers: uploadHeaders('bench-50mb.bin'),
    everyMs: 10,
    rssGrowthMb: 64,
    mb,
    prepare: () => Promise.resolve({ body: bigFile() })
};

const stored = new UploadedFile(size, 'bench-50mb-download.bin');

export const attachmentWork: Long[] = [
    { name: 'health-upload', title: `/health during a ${mb} MB attachment upload`, ...upload },
    {
        name: 'health-download',
        title: `/health during a ${mb} MB attachment download`,
        method: 'GET',
        path: `${owner}/doclinks`,
        everyMs: 10,
        rssGrowthMb: 64,
        mb,
        prepare: async (url, headers) => ({ path: await stored.upload({ url, prefix: '', headers }, owner) })
    },
    {
        name: 'patch-upload',
        title: `PATCH of a work order during a ${mb} MB attachment upload`,
        ...upload,
        check: { label: 'PATCH of a work order', method: 'POST', path: patched, headers: { 'content-type': 'application/json', 'x-method-override': 'PATCH' }, body: JSON.stringify({ description: 'Bench write beside an upload' }) }
    }
];
