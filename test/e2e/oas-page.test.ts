import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { chromium, type Browser } from 'playwright-core';

import { testDatabases } from '../helpers/databases';
import { dataDir, startProcess, type RunningServer } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The README's OpenAPI examples, run as pasted, and the API page in a real browser (Debian's Chromium, headless),
// against a real server process on a fresh demo database: the page loads from the server alone (no CDN, under its
// content security policy), logs in with its form, lists the structures, and runs a query with "Try it out".

const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('### The OpenAPI document and the API page\n'), readme.indexOf('\n## Errors\n'));
const script = /```sh\n([\s\S]*?)```/.exec(section)![1]!;

const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

for (const database of testDatabases) {
    experiment(`the OpenAPI examples and the API page (${database.name})`, { timeout: 120_000 }, () => {

        let drop: () => Promise<void>;
        let server: RunningServer;
        let browser: Browser;
        before(async () => {

            const created = await database.create();
            drop = created.drop;
            server = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dataDir() });
            browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
        });

        after(async () => {

            await browser?.close();
            await server?.stop();
            await drop?.();
        });

        test('the README\'s examples run as written: the documents are valid OpenAPI 3.1, a login first, the page is HTML', async () => {

            const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-readme-'));
            try {
                const run = ChildProcess.spawnSync('bash', ['-eo', 'pipefail', '-c', script.replaceAll('127.0.0.1:8080', `127.0.0.1:${server.port}`)], { cwd: dir, encoding: 'utf8' });
                expect(run.status, run.stderr).to.equal(0);
                expect(run.stdout.split('\n')).to.equal(['401', '200 text/html; charset=utf-8', '']);
                const { Validator } = await import('@seriousme/openapi-schema-validator');
                for (const file of ['osprey-api.json', 'mxapiasset-api.json']) {
                    const document = JSON.parse(Fs.readFileSync(Path.join(dir, file), 'utf8'));
                    expect(await new Validator().validate(document), file).to.equal({ valid: true });
                }

                const one = JSON.parse(Fs.readFileSync(Path.join(dir, 'mxapiasset-api.json'), 'utf8'));
                expect(one.tags.map((tag: { name: string }) => tag.name)).to.equal(['MXAPIASSET']);
            }
            finally {
                Fs.rmSync(dir, { recursive: true, force: true });
            }
        });

        test('the page logs in, lists the structures and runs a query with Try it out', async () => {

            const page = await browser.newPage();
            const problems: string[] = [];
            const requests: string[] = [];
            page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
            page.on('pageerror', (error) => problems.push(error.message));
            page.on('request', (request) => requests.push(request.url()));
            // What the content security policy refuses, as the page sees it.
            await page.addInitScript(() => {

                const seen: string[] = [];
                (window as unknown as { violations: string[] }).violations = seen;
                document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
            });
            try {
                const origin = `http://127.0.0.1:${server.port}`;
                const answer = await page.goto(`${origin}/maximo/oas3/api.html`);
                expect(answer!.status()).to.equal(200);
                expect(answer!.headers()['content-security-policy']).to.contain('script-src \'self\'');

                // Not logged in: the document answers 401 and the page shows its form.
                await page.locator('#login').waitFor({ state: 'visible' });
                await page.fill('input[name=j_username]', 'wilson');
                await page.fill('input[name=j_password]', 'nope');
                await page.click('#login button');
                await page.locator('#problem', { hasText: 'BMXAA7901E' }).waitFor();
                await page.fill('input[name=j_password]', 'wilson');
                await page.click('#login button');

                // The structures, each a tag of Swagger UI.
                await page.locator('.swagger-ui .info .title', { hasText: 'Osprey' }).waitFor();
                for (const name of ['MXAPIASSET', 'MXAPILOCATION', 'MXAPIPERSON', 'MXAPIWODETAIL']) {
                    await page.locator(`#operations-tag-${name}`).waitFor();
                }

                if (process.env.OSPREY_SCREENSHOT) {
                    await page.screenshot({ path: `${process.env.OSPREY_SCREENSHOT}-structures.png` });
                }

                await page.click('#operations-tag-MXAPIASSET');
                const operation = page.locator('#operations-MXAPIASSET-get_os_mxapiasset');
                await operation.locator('.opblock-summary').click();
                await operation.locator('.try-out__btn').click();
                await operation.locator('tr[data-param-name="oslc.pageSize"] input').fill('3');
                await operation.locator('tr[data-param-name="oslc.select"] input').fill('assetnum,description');
                await operation.locator('button.execute').click();
                const status = operation.locator('.live-responses-table tbody .response-col_status').first();
                await status.waitFor();
                expect((await status.textContent())!.trim()).to.equal('200');
                const body = JSON.parse((await operation.locator('.live-responses-table .microlight').first().textContent())!);
                expect(body.member).to.have.length(3);
                expect(Object.keys(body.member[0]).sort()).to.equal(['_rowstamp', 'assetnum', 'description', 'href']);
                if (process.env.OSPREY_SCREENSHOT) {
                    await operation.locator('.live-responses-table').screenshot({ path: `${process.env.OSPREY_SCREENSHOT}-query.png` });
                }

                // Everything came from this server; nothing the policy refused, no script error.
                expect(requests.filter((url) => !url.startsWith(origin))).to.equal([]);
                expect(problems.filter((text) => !text.includes('401'))).to.equal([]);
                expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).to.equal([]);
            }
            finally {
                await page.close();
            }
        });
    });
}
