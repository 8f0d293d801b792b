// Values kept while osprey_authstamp stays as it was when they were read (credential-stamp.ts): a value is kept
// under the stamp read before it was loaded, so a change committed while it loads moves the stamp past it.
// Single flight: while a value is being loaded, every other request for it under the same stamp waits for that
// load instead of starting its own (issue 19: a burst of requests with one API key after a change).
export class StampedCache<V> {

    readonly #max: number;
    readonly #entries = new Map<string, V>();
    readonly #loading = new Map<string, Promise<V>>();
    #stamp: number | undefined;

    constructor(max = 10_000) {

        this.#max = max;
    }

    async read(stamp: number, key: string, load: () => Promise<V>): Promise<V> {

        if (stamp !== this.#stamp) {
            if (Number.isNaN(stamp) || stamp < (this.#stamp ?? -Infinity)) {
                return await load();                        // no stamp to keep it under, or one read before the last change
            }

            this.#entries.clear();
            this.#loading.clear();
            this.#stamp = stamp;
        }
        else if (this.#entries.has(key)) {
            return this.#entries.get(key)!;
        }
        else if (this.#loading.has(key)) {
            return await this.#loading.get(key)!;
        }

        const loading = load();
        this.#loading.set(key, loading);
        let value: V;
        try {
            value = await loading;
        }
        finally {
            if (this.#loading.get(key) === loading) {
                this.#loading.delete(key);
            }
        }

        if (this.#stamp === stamp) {
            if (this.#entries.size >= this.#max) {
                this.#entries.clear();
            }

            this.#entries.set(key, value);
        }

        return value;
    }
}
