import * as Http from 'node:http';


interface Answer {
    status: number;
    type?: string;
    location?: string;
    body: string;
}

// Baseline (a), the framework-free ceiling: node:http answering each scenario with the body Osprey gave for
// it once (PUT /_answer/{scenario} sets it). It reads the request to its end, as any server must, and
// nothing else.
const answers = new Map<string, { status: number; headers: Record<string, string | number>; body: Buffer }>();

const server = Http.createServer((req, res) => {

    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {

        const url = req.url ?? '/';
        if (req.method === 'PUT' && url.startsWith('/_answer/')) {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer;
            const body = Buffer.from(answer.body, 'utf8');
            const headers: Record<string, string | number> = { 'content-length': body.length };
            if (answer.type) {
                headers['content-type'] = answer.type;
            }

            if (answer.location) {
                headers.location = answer.location;
            }

            answers.set(url.slice('/_answer/'.length), { status: answer.status, headers, body });
            res.writeHead(204).end();
            return;
        }

        const answer = answers.get(/^\/b\/([^/?]+)/.exec(url)?.[1] ?? '');
        if (!answer) {
            res.writeHead(404, { 'content-length': 0 }).end();
            return;
        }

        res.writeHead(answer.status, answer.headers).end(answer.body);
    });
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`baseline node:http listening on ${process.env.PORT}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
