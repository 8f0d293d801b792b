// Brute-force protection for credential logins (and API keys sent from one address): failures are counted
// per user and per client address over a window. From the third failure of a user the 401 is slowed (250 ms,
// doubling, at most 2 s); at the limit the user, or the address, is refused with 429 until the window has
// passed. A user's count is theirs alone, so other users' failures never lock them out; the address limit is
// five times higher, for guessing spread over many user names. A successful login clears the user's count.
// Counts live in this process: with several nodes an attacker gets each node's allowance.

interface Count {
    failures: number;
    since: number;
}

export interface ThrottleSettings {
    readonly attempts: number;
    readonly windowMs: number;
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

    // Seconds until the user or the address may try again; 0 when they may now.
    retryAfter(keys: readonly string[], now = Date.now()): number {

        let wait = 0;
        for (const key of keys) {
            const count = this.#live(key, now);
            if (count && count.failures >= this.#limit(key)) {
                wait = Math.max(wait, Math.ceil((count.since + this.#settings.windowMs - now) / 1000));
            }
        }

        return wait;
    }

    // Records a failure; answers how long to hold the 401 back.
    failed(keys: readonly string[], now = Date.now()): number {

        let failures = 0;
        for (const key of keys) {
            const count = this.#live(key, now) ?? { failures: 0, since: now };
            ++count.failures;
            this.#counts.set(key, count);
            failures = key.startsWith('user:') ? count.failures : failures;
        }

        if (this.#counts.size > 100_000) {
            this.#counts.clear();                 // a flood of random names must not grow memory without end
        }

        return failures >= 3 ? Math.min(2000, 250 * 2 ** (failures - 3)) : 0;
    }

    succeeded(userKey: string): void {

        this.#counts.delete(userKey);
    }
}

export const throttleKeys = (userid: string | undefined, address: string): string[] => [...(userid ? [`user:${userid.toUpperCase()}`] : []), `address:${address}`];
