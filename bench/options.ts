import * as Path from 'node:path';
import { parseArgs } from 'node:util';


export const root = Path.join(__dirname, '..', '..');

export interface BenchOptions {
    quick: boolean;
    /** Requests per scenario and target, where given, instead of `duration`. */
    requests?: number;
    pg?: string;
    profile: boolean;
    scenarios?: string[];
    duration: number;
    rounds: number;
    warmup: number;
    connections: number;
    assets: number;
    workorders: number;
    bulkRequests: number;
    dataDir: string;
    outDir: string;
    readme: boolean;
    sqliteSynchronous: string;
    auth: 'apikey' | 'maxauth';
}

export const usage = `npm run bench -- [options]
  --quick             tiny data set, ~1 s per scenario (the end-to-end check of test/bench.test.ts)
  --pg URL            run on this PostgreSQL database (filled by the generator when empty) instead of SQLite
  --profile           CPU-profile the server (node --cpu-prof) on member and query (or --scenarios) instead
  --scenarios a,b     run only these scenarios
  --duration S        seconds measured per scenario and target (default 10; quick 1)
  --requests N        requests measured per scenario and target instead of a duration (autocannon ends a
                      duration on a whole second: the test suite's quick run sends 40 each)
  --rounds N          Osprey and baseline (b) measured in N alternating rounds of duration/N seconds each
                      (default 5; quick 1); the long report and bulk scenarios take fewer
  --warmup S          seconds of unmeasured load before each measurement (default 2; quick 0)
  --connections N     concurrent connections (default 10)
  --assets N          assets in the generated data set (default 100000; quick 200)
  --workorders N      work orders in the generated data set (default 200000; quick 2000)
  --bulk-requests N   bulk requests of 1,000 records per target (default 10; quick 2)
  --data DIR          where the generated SQLite databases are kept (default bench/data)
  --out DIR           where results are written (default bench/results)
  --readme            write the tables into docs/performance.md
  --sqlite-synchronous MODE  OFF, NORMAL (the server's default), FULL or EXTRA for Osprey and baseline (b)
  --auth KIND         apikey (the default: what an integration sends) or maxauth (user and password on every
                      request, with no cookie kept: the path that is offered a session on each answer)`;

const number = (text: string | undefined, name: string, fallback: number) => {

    if (text === undefined) {
        return fallback;
    }

    if (!/^\d+(\.\d+)?$/.test(text)) {
        throw new Error(`--${name} must be a number\n${usage}`);
    }

    return Number(text);
};

export const parseOptions = (argv: string[]): BenchOptions => {

    const { values } = parseArgs({
        args: argv,
        options: {
            quick: { type: 'boolean', default: false },
            pg: { type: 'string' },
            profile: { type: 'boolean', default: false },
            scenarios: { type: 'string' },
            duration: { type: 'string' },
            requests: { type: 'string' },
            rounds: { type: 'string' },
            warmup: { type: 'string' },
            connections: { type: 'string' },
            assets: { type: 'string' },
            workorders: { type: 'string' },
            'bulk-requests': { type: 'string' },
            data: { type: 'string' },
            out: { type: 'string' },
            readme: { type: 'boolean', default: false },
            'sqlite-synchronous': { type: 'string', default: 'NORMAL' },
            auth: { type: 'string', default: 'apikey' },
            help: { type: 'boolean', default: false }
        }
    });

    if (values.help) {
        throw new Error(usage);
    }

    if (values.pg !== undefined && !/^postgres(ql)?:\/\//.test(values.pg)) {
        throw new Error(`--pg must be a postgres:// URL\n${usage}`);
    }

    const sqliteSynchronous = values['sqlite-synchronous']!.toUpperCase();
    if (!['OFF', 'NORMAL', 'FULL', 'EXTRA'].includes(sqliteSynchronous)) {
        throw new Error(`--sqlite-synchronous must be OFF, NORMAL, FULL or EXTRA\n${usage}`);
    }

    if (values.auth !== 'apikey' && values.auth !== 'maxauth') {
        throw new Error(`--auth must be apikey or maxauth\n${usage}`);
    }

    const quick = values.quick!;
    return {
        quick,
        pg: values.pg,
        profile: values.profile!,
        scenarios: values.scenarios?.split(',').map((name) => name.trim()).filter(Boolean),
        duration: number(values.duration, 'duration', quick ? 1 : 10),
        requests: values.requests === undefined ? undefined : number(values.requests, 'requests', 0),
        rounds: number(values.rounds, 'rounds', quick ? 1 : 5),
        warmup: number(values.warmup, 'warmup', quick ? 0 : 2),
        connections: number(values.connections, 'connections', 10),
        assets: number(values.assets, 'assets', quick ? 200 : 100_000),
        workorders: number(values.workorders, 'workorders', quick ? 2000 : 200_000),
        bulkRequests: number(values['bulk-requests'], 'bulk-requests', quick ? 2 : 10),
        dataDir: Path.resolve(values.data ?? Path.join(root, 'bench', 'data')),
        outDir: Path.resolve(values.out ?? Path.join(root, 'bench', 'results')),
        readme: values.readme!,
        sqliteSynchronous,
        auth: values.auth
    };
};
