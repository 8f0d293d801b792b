import { parseArgs } from 'node:util';

import { ConfigError, loadOptions } from '../config';
import { MigrationError } from '../db/migrate';
import { StructureError } from '../structures/problems';
import { GenerateError, generateData } from './generate-data';


const usage = 'npm run demo:generate -- [--assets N] [--workorders M] [--database URL]\n' +
    '  fills an empty database (default: DATABASE_URL, else the server\'s default) with N assets and M work orders';

const count = (text: string, name: string) => {

    if (!/^\d{1,9}$/.test(text)) {
        throw new ConfigError(`--${name} must be a whole number\n${usage}`);
    }

    return Number(text);
};

const known = [ConfigError, GenerateError, MigrationError, StructureError];

// `npm run demo:generate`: the settings are the server's (environment, --config file), so the data lands
// where `npm start` would look for it.
const main = async () => {

    const { values } = parseArgs({ options: { assets: { type: 'string', default: '100000' }, workorders: { type: 'string', default: '200000' }, database: { type: 'string' }, config: { type: 'string' } } });
    const options = loadOptions({ ...process.env, ...(values.database ? { DATABASE_URL: values.database } : {}) }, values.config);
    const size = { assets: count(values.assets!, 'assets'), workorders: count(values.workorders!, 'workorders') };
    const started = performance.now();
    const result = await generateData(options, size);
    const database = options.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
    if (result.reused) {
        process.stdout.write(`${database} already holds the generated data (${size.assets} assets, ${size.workorders} work orders): nothing to do\n`);
        return;
    }

    const total = Object.values(result.rows).reduce((sum, n) => sum + n, 0);
    const lines = Object.entries(result.rows).map(([table, n]) => `  ${table.padEnd(12)} ${n.toLocaleString('en-US').padStart(11)}`);
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write([`Generated ${total.toLocaleString('en-US')} rows into ${database} in ${seconds.toFixed(1)} s (rows: ${result.seconds} s, ${Math.round(total / Math.max(result.seconds, 0.1)).toLocaleString('en-US')} rows/s)`, ...lines, ''].join('\n'));
};

main().catch((err: Error) => {

    process.stderr.write(known.some((type) => err instanceof type) ? `${err.message}\n` : `demo:generate failed: ${err.stack}\n`);
    process.exit(1);
});
