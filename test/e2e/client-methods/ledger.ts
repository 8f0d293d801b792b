import * as Code from '@hapi/code';
import { ApiHome } from '@maximomize/maximo-api-client';

import type { ClientServer, NpmClient } from '../../helpers/npm-client';
import { clientBuilder } from '../../helpers/npm-client';


const { expect } = Code;

// What the server does with a method of the npm client, as the README's list names it:
// - works: it calls the server, and what comes back was checked (values read back, other records unchanged);
// - 501: the server answers 501 naming the Maximo service it does not provide;
// - 400: the server refuses by name something the method sends that it does not carry out (yet);
// - client: the method sends nothing (a builder step, a getter, a factory); the methods that send what it builds
//   are checked;
// - client bug: the method calls the server, and the server answers as Maximo would, but the client makes of it
//   something other than its name says.
export const states = ['works', '501', '400', 'client', 'client bug'] as const;
export type State = typeof states[number];

export interface Probe {
    readonly title: string;
    readonly run: (context: Context) => Promise<void>;
}

// What a probe reaches: the server, WILSON's and MAXADMIN's clients, and the ledger of what each method did.
export class Context {

    readonly seen = new Map<string, State>();

    constructor(readonly server: ClientServer, readonly wilson: NpmClient, readonly admin: NpmClient) { }

    get port(): number {

        return this.server.running.port;
    }

    get home(): string {

        return `http://127.0.0.1:${this.port}/maximo/oslc`;
    }

    // A new client of this server (the services that are singletons take the last one built).
    client(user: 'wilson' | 'maxadmin', home = ApiHome.OSLC): NpmClient {

        return clientBuilder(this.port).withCredentials(user, user).apiHome(home).build();
    }

    // A GET of the server written by hand, to read back what a method did: the JSON and the status.
    async get(path: string, user: 'wilson' | 'maxadmin' = 'wilson'): Promise<{ status: number; body: any }> {

        const res = await fetch(`${this.home}${path}`, { headers: { maxauth: Buffer.from(`${user}:${user}`).toString('base64') } });
        return { status: res.status, body: await res.json() };
    }

    record(method: string, state: State): void {

        expect(this.seen.has(method), `${method} recorded twice`).to.be.false();
        this.seen.set(method, state);
    }

    works(...methods: string[]): void {

        methods.forEach((method) => this.record(method, 'works'));
    }

    clientSide(...methods: string[]): void {

        methods.forEach((method) => this.record(method, 'client'));
    }

    // The call is refused with the status and the Maximo error shape, its message naming what it names.
    async refused(method: string, status: 501 | 400, call: () => Promise<unknown>, names: string): Promise<void> {

        const error = await expectError(call);
        expect(error.status, method).to.equal(status);
        expect(error.body?.Error?.statusCode, method).to.equal(String(status));
        expect(error.body?.Error?.reasonCode, method).to.equal(status === 501 ? 'BMXAA1726E' : 'BMXAA4153E');
        expect(error.body?.Error?.message, method).to.contain(names);
        if (status === 501) {
            expect(error.body.Error.message, method).to.contain('Osprey does not provide');
        }

        this.record(method, status === 501 ? '501' : '400');
    }

    async notProvided(method: string, call: () => Promise<unknown>, names: string): Promise<void> {

        await this.refused(method, 501, call, names);
    }
}

export interface CaughtError {
    readonly status: number;
    readonly body: any;
}

// The status and body of a failed call, however the client wrapped it: an OslcError (the resource services) or
// axios's error (the services that call the HTTP client themselves).
export const expectError = async (call: () => Promise<unknown>): Promise<CaughtError> => {

    let caught: any;
    try {
        await call();
    }
    catch (error) {
        caught = error;
    }

    expect(caught, 'the call was expected to fail').to.exist();
    if (caught.response) {
        return { status: caught.response.status, body: caught.response.data };
    }

    expect(caught.name, String(caught.message)).to.equal('OslcError');
    return { status: caught.statusCode, body: { Error: caught.oslcError } };
};

export const idOf = (href: string): string => href.split('/').pop()!;
