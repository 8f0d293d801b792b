import { pino, type DestinationStream } from 'pino';


export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';
export type EventLevel = Exclude<LogLevel, 'silent'>;
export type LogFormat = 'pretty' | 'json';

/**
 * Where Osprey's events go: one call per event, a level and its fields (`msg` names the event). `level` says how
 * much is written, so that work done only for debug lines (statement counts) is skipped otherwise; a logger
 * without one (a function an embedder passes) is taken as `info`.
 */
export interface Logger {
    (level: EventLevel, event: Record<string, unknown>): void;
    readonly level?: LogLevel;
}

export interface LoggerSettings {
    /** `pretty`: one coloured line per event for a person; `json`: one JSON object per line for a log shipper.
     * Default: pretty when the destination is a terminal (stdout's isTTY), else JSON. */
    format?: LogFormat | undefined;
    /** Where lines go; stdout when not given. */
    destination?: DestinationStream | NodeJS.WritableStream;
}

const order: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

// Whether a logger writes events of this level.
export const logs = (log: Logger, level: EventLevel): boolean => order[level] <= order[log.level ?? 'info'];

// The fields a request line's pretty form puts in its one line; the others follow it as `key: value`.
const requestFields = ['requestId', 'method', 'path', 'status', 'ms', 'user', 'client', 'reasonCode'];

// A request reads as `GET /maximo/oslc/os/mxapiwo?lean=1 200 12 ms WILSON 127.0.0.1 [id]`, any other event as its msg.
const prettyMessage = (log: Record<string, unknown>): string => {

    const msg = String(log.msg);
    if (msg !== 'request') {
        return log.requestId === undefined ? msg : `${msg} [${String(log.requestId)}]`;
    }

    const reason = log.reasonCode === undefined ? '' : ` ${String(log.reasonCode)}`;
    return `${String(log.method)} ${String(log.path)} ${String(log.status)}${reason} ${String(log.ms)} ms ${String(log.user ?? '-')} ${String(log.client)} [${String(log.requestId)}]`;
};

// Each JSON line pino makes is turned into a person's line here, in-process and synchronously (no worker thread).
const prettyStream = (destination: LoggerSettings['destination'], colorize: boolean): DestinationStream => {

    // Loaded only for a person's terminal: a JSON server never needs it.
    const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');

    const prettify = prettyFactory({
        colorize,
        translateTime: 'SYS:HH:MM:ss.l',
        singleLine: true,
        ignore: ['msg', ...requestFields].join(','),
        messageFormat: (log) => prettyMessage(log)
    });
    const out = destination ?? process.stdout;
    return { write: (line: string) => out.write(prettify(line)) };
};

// The format in force: as set, else pretty for a terminal.
export const formatOf = (settings: LoggerSettings): LogFormat => settings.format ?? (settings.destination === undefined && process.stdout.isTTY === true ? 'pretty' : 'json');

// What the process says whatever the level (that it listens, that it drains, that it stopped: scripts wait for
// these): the text for a person, or one JSON line with the fields in the JSON format.
export const announce = (format: LogFormat, text: string, fields: Record<string, unknown> = {}, write: (line: string) => unknown = (line) => process.stdout.write(line)): void => {

    write(format === 'json' ? `${JSON.stringify({ level: 'info', time: new Date().toISOString(), msg: text.split('\n')[0], ...fields })}\n` : `${text}\n`);
};

// The server's logger: pino, writing JSON lines, or pretty lines in-process (no worker thread) for a person.
export const createLogger = (level: LogLevel, settings: LoggerSettings = {}): Logger => {

    const format = formatOf(settings);
    const colorize = settings.destination === undefined && process.stdout.isTTY === true;
    const stream = format === 'pretty' ? prettyStream(settings.destination, colorize) : settings.destination ?? pino.destination({ dest: 1, sync: true });
    const logger = pino({
        level,
        base: undefined,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) }
    }, stream as DestinationStream);

    const log = ((eventLevel, event) => logger[eventLevel](event)) as Logger;
    return Object.assign(log, { level });
};
