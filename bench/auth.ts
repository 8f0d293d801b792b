// How the benchmark authenticates, in one place: an API key by default (what a real integration sends), or the
// maxauth header when asked (--auth maxauth) or when apitoken/get fails; the run says which.
export interface Authentication {
    kind: 'apikey' | 'maxauth';
    headers: Record<string, string>;
    note: string;
}

export const authenticate = async (baseUrl: string, userid: string, password: string, kind: Authentication['kind'] = 'apikey'): Promise<Authentication> => {

    const maxauth = Buffer.from(`${userid}:${password}`).toString('base64');
    if (kind === 'maxauth') {
        return { kind, headers: { maxauth }, note: `maxauth header of ${userid} on every request (--auth maxauth)` };
    }

    let note: string;
    try {
        const res = await fetch(`${baseUrl}/maximo/oslc/apitoken/get`, { method: 'POST', headers: { maxauth, 'content-type': 'application/json' }, body: '{}' });
        const body = await res.text();
        const apikey = res.ok ? (JSON.parse(body) as { apikey?: unknown }).apikey : undefined;
        if (typeof apikey === 'string' && apikey) {
            return { kind: 'apikey', headers: { apikey }, note: `API key of ${userid} from apitoken/get` };
        }

        note = `apitoken/get answered ${res.status}${res.ok ? ' without an apikey' : ''}; maxauth header of ${userid} instead`;
    }
    catch (err) {
        note = `apitoken/get failed (${(err as Error).message}); maxauth header of ${userid} instead`;
    }

    return { kind: 'maxauth', headers: { maxauth }, note };
};
