// Brute-force protection for credential logins (and API keys sent from one address): failures are counted
// per user and per client address over a window. From the third failure of a user the 401 is slowed (250 ms,
// doubling, at most 2 s); at the limit the user, or the address, is refused with 429 until the window has
// passed, or until an administrator lifts a user's lock. A user's count is theirs alone, so other users'
// failures never lock them out; the address limit is five times higher, for guessing spread over many user
// names. A successful login clears the user's count and gives back its attempt to the address.
//
// An attempt is counted *before* its password is checked (issue 18): a burst of concurrent guesses gets no more
// checks than the limit, since each takes its place in the count before the first check has finished.
// Counts live in this process: with several nodes an attacker gets each node's allowance.

interface Count {
    failures: number;
    since: number;
}

export interface ThrottleSettings {
    readonly attempts: number;
    readonly windowMs: number;
    /** How many keys the store holds at most (users and addresses); 100,000 when not given. */
    readonly capacity?: number;
}

// A counted attempt: its outcome settles it.
export interface Attempt {
    /** A wrong credential: the count stays; answers how long to hold the 401 back (ms). */
    failed(): number;
    /** A right one: the user's count is cleared and the address's attempt given back. */
    succeeded(): void;
}

// One lock as an administrator sees it.
export interface Lock {
    readonly key: string;
    readonly failures: number;
    readonly retryAfter: number;
}

export class LoginThrottle {

    readonly #settings: ThrottleSettings;
    readonly #counts = new Map<string, Count>();

    constructor(settings: ThrottleSettings) {

        this.#settings = settings;
    }

    #live(key: string, now: number): Count | undefined {

        const count = this.#counts.get(key);
        if (count && now - count.since >= this.#settings.windowMs) {
            this.#counts.delete(key);
            return undefined;
        }

        return count;
    }

    #limit(key: string) {

        return key.startsWith('address:') ? this.#settings.attempts * 5 : this.#settings.attempts;
    }

    #wait(key: string, count: Count, now: number) {

        return count.failures >= this.#limit(key) ? Math.ceil((count.since + this.#settings.windowMs - now) / 1000) : 0;
    }

    // A flood of random names must not grow memory without end, nor free the locks it would like freed: when the
    // store is full, the oldest keys that lock nobody go first, in a batch (so a flood pays the scan once per
    // thousand keys), and a locked key only when nothing else is left.
    #makeRoom(now: number) {

        const capacity = this.#settings.capacity ?? 100_000;
        if (this.#counts.size < capacity) {
            return;
        }

        const batch = Math.max(1, Math.ceil(capacity / 100));
        let freed = 0;
        for (const [key, count] of this.#counts) {
            if (freed >= batch) {
                return;
            }

            if (this.#wait(key, count, now) === 0) {
                this.#counts.delete(key);
                ++freed;
            }
        }

        for (const key of this.#counts.keys()) {
            if (freed >= batch) {
                return;
            }

            this.#counts.delete(key);
            ++freed;
        }
    }

    // Seconds until the user or the address may try again; 0 when they may now.
    retryAfter(keys: readonly string[], now = Date.now()): number {

        let wait = 0;
        for (const key of keys) {
            const count = this.#live(key, now);
            wait = count ? Math.max(wait, this.#wait(key, count, now)) : wait;
        }

        return wait;
    }

    // Counts an attempt before its check: a number (seconds to wait) when the user or address is locked, else the
    // attempt to settle once the check is done.
    attempt(keys: readonly string[], now = Date.now()): number | Attempt {

        const wait = this.retryAfter(keys, now);
        if (wait > 0) {
            return wait;
        }

        const counted = keys.map((key) => {

            let count = this.#live(key, now);
            if (!count) {
                this.#makeRoom(now);
                count = { failures: 0, since: now };
                this.#counts.set(key, count);
            }

            ++count.failures;
            return { key, count };
        });

        return {
            failed: () => {

                const user = counted.find(({ key }) => key.startsWith('user:'));
                const failures = user ? user.count.failures : 0;
                return failures >= 3 ? Math.min(2000, 250 * 2 ** (failures - 3)) : 0;
            },
            succeeded: () => {

                for (const { key, count } of counted) {
                    if (key.startsWith('user:')) {
                        this.#counts.delete(key);
                    }
                    else if (this.#counts.get(key) === count) {
                        count.failures = Math.max(0, count.failures - 1);
                    }
                }
            }
        };
    }

    // The keys at their limit now: what an administrator may lift.
    locks(now = Date.now()): Lock[] {

        return [...this.#counts].flatMap(([key]) => {

            const count = this.#live(key, now);
            const retryAfter = count ? this.#wait(key, count, now) : 0;
            return count && retryAfter > 0 ? [{ key, failures: count.failures, retryAfter }] : [];
        });
    }

    // Lifts the lock (and forgets the failures) of a user or an address; whether there was a count to forget.
    lift(key: string): boolean {

        return this.#counts.delete(key);
    }

    get size(): number {

        return this.#counts.size;
    }
}

export const userKey = (userid: string): string => `user:${userid.toUpperCase()}`;

export const throttleKeys = (userid: string | undefined, address: string): string[] => [...(userid ? [userKey(userid)] : []), `address:${address}`];
