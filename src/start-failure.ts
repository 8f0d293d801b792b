import { databaseKind } from './db/knex';


interface FailureDetails {
    code?: string;
    syscall?: string;
    address?: string;
    port?: number;
    message?: string;
    stack?: string;
    errors?: FailureDetails[];
}

// Why a connection to PostgreSQL did not open, by the code of the operating system's error.
const unreachable = new Map([
    ['ECONNREFUSED', 'nothing answers on that port'],
    ['ENOTFOUND', 'the host name is not known'],
    ['EAI_AGAIN', 'the host name could not be looked up'],
    ['ETIMEDOUT', 'the connection timed out'],
    ['EHOSTUNREACH', 'the host cannot be reached'],
    ['ENETUNREACH', 'the network cannot be reached'],
    ['ECONNRESET', 'the connection was closed at once'],
    // PostgreSQL is starting up, shutting down or in recovery.
    ['57P03', 'it does not accept connections yet']
]);

// A word a shell takes as it is, else quoted.
const shellWord = (word: string) => (/^[\w.@%+=:,/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

const postgresParts = (databaseUrl: string) => {

    const url = new URL(databaseUrl);
    return {
        host: url.hostname || url.searchParams.get('host') || 'localhost',
        port: url.port || '5432',
        user: decodeURIComponent(url.username),
        database: decodeURIComponent(url.pathname.slice(1))
    };
};

// The sentence for a failure an operator meets and can mend; none for any other.
const advice = (error: FailureDetails, databaseUrl: string | undefined): string | undefined => {

    if (error.syscall === 'listen') {
        const where = `port ${error.port} of ${error.address}`;
        switch (error.code) {
            case 'EADDRINUSE': return `Osprey could not start: ${where} is in use by another program (another Osprey?); stop it, or set PORT to a free port.`;
            case 'EACCES': return `Osprey could not start: this user may not listen on ${where}; set PORT to 1024 or above.`;
            case 'EADDRNOTAVAIL': return `Osprey could not start: ${error.address} is not an address of this machine; set HOST to one of its addresses (or 0.0.0.0 for all).`;
        }

        return undefined;
    }

    if (databaseUrl === undefined || databaseKind(databaseUrl) !== 'postgresql') {
        return undefined;
    }

    const { host, port, user, database } = postgresParts(databaseUrl);
    if (error.code === '3D000') {
        const options = [...host === 'localhost' ? [] : ['-h', host], ...port === '5432' ? [] : ['-p', port], ...user ? ['-U', user] : []];
        return `Osprey could not start: the PostgreSQL database "${database}" does not exist on ${host}:${port}; create it with the line below, or set DATABASE_URL to a database that exists.\n  createdb ${[...options, database].map(shellWord).join(' ')}`;
    }

    if (error.code === '28P01' || error.code === '28000') {
        return `Osprey could not start: PostgreSQL at ${host}:${port} refused the user "${user}" (${error.message}); set the user and password of DATABASE_URL to ones it accepts.`;
    }

    // Node answers a host with several addresses (localhost: ::1 and 127.0.0.1) with one error per address.
    const reason = unreachable.get(error.code ?? error.errors?.[0]?.code ?? '');
    if (reason) {
        return `Osprey could not start: PostgreSQL at ${host}:${port} cannot be reached (${reason}); start it, or set DATABASE_URL to where it runs.`;
    }

    return undefined;
};

// What the process prints when its start fails: for the failures an operator meets, one sentence that says what
// to do; for any other, its message. Where it failed in the code (the stack) only with OSPREY_LOG=debug.
export const startFailure = (error: unknown, databaseUrl: string | undefined, debug: boolean): string => {

    const details = (error ?? {}) as FailureDetails;
    const sentence = advice(details, databaseUrl) ?? `Osprey could not start: ${details.message ?? String(error)}${debug ? '' : ' (OSPREY_LOG=debug prints where)'}`;
    return debug && details.stack ? `${sentence}\n${details.stack}\n` : `${sentence}\n`;
};
