import type { Osprey } from '../context';
import type { UserProfile } from '../auth/users';
import type { Row, Structure } from '../structures/registry';
import type { AttributeChange, ChildChange } from './change-types';
import type { WriteKind } from './rights';


// After-commit hooks (issue 17: plan → apply in one transaction → after commit): where events will attach.
// A subscriber hears of each committed transaction of the write engine with what it wrote, after COMMIT, and
// never of one that rolled back. Subscribers belong to a server (its Osprey), not to the process: two servers in
// one process (tests, an embedder) do not hear each other's writes.

/**
 * One record a committed transaction wrote: its structure (by name in `os`), its id and key, what happened to it
 * and, for an update, what changed. Made small to be handed on (a queue, a webhook): `structure`, the whole
 * structure for a plugin's use, is not enumerable, so JSON.stringify leaves it out.
 */
export interface CommittedWrite {
    readonly structure: Structure;
    /** The structure's name, as routes name it (MXAPIWODETAIL). */
    readonly os: string;
    /** What the request asked of the record (a bulk item's AddChange is a sync). */
    readonly kind: WriteKind;
    /** What happened to it: a sync is a create or an update, an update whose body said `_action: Delete` a delete. */
    readonly operation: 'create' | 'update' | 'delete';
    /** The record's id as its href ends with ({home}/os/{os}/{id}), and its primary key values. */
    readonly id: string;
    readonly key: Row;
    /** An update: the attributes whose value changed, before and after (as stored); absent when none did. */
    readonly changes?: Readonly<Record<string, AttributeChange>>;
    /** The child rows the write added, changed or removed (src/write/changes.ts); absent when none. */
    readonly children?: readonly ChildChange[];
}

/** An action a committed transaction ran (issue 35): what it wrote is among the writes. `structure` is not
 * enumerable, as a write's. */
export interface CommittedAction {
    readonly structure: Structure;
    readonly os: string;
    /** As the client named it (`wsmethod:changeStatus`). */
    readonly name: string;
    /** The record it acted on: its id as its href ends with, and its primary key values; none for a collection action. */
    readonly id?: string;
    readonly key?: Row;
}

// A write or an action as subscribers get it: `structure` there for code, out of its JSON.
export const committed = <T extends { os: string }>(structure: Structure, fields: Omit<T, 'structure' | 'os'>): T => {

    return Object.defineProperty({ os: structure.name, ...fields }, 'structure', { value: structure, enumerable: false }) as unknown as T;
};

export interface Commit {
    readonly user: UserProfile;
    /** The transactionid recorded with the commit, where the request sent one: a bulk item's `ID#n` without allornothing. */
    readonly transactionId?: string;
    /** In write order: one for a single write or a bulk item, every item's for an all-or-nothing bulk. */
    readonly writes: readonly CommittedWrite[];
    /** The actions the transaction ran, in order (none for a plain write). */
    readonly actions: readonly CommittedAction[];
}

export type CommitSubscriber = (commit: Commit) => void | Promise<void>;

interface Subscribers {
    readonly list: Set<CommitSubscriber>;
    report: (error: unknown) => void;
}

const servers = new WeakMap<Osprey, Subscribers>();

const subscribersOf = (osprey: Osprey): Subscribers => {

    let found = servers.get(osprey);
    if (!found) {
        // Until the server says where errors go (commitErrorsTo), a failing subscriber is ignored: see notifyCommit.
        found = { list: new Set(), report: () => undefined };
        servers.set(osprey, found);
    }

    return found;
};

// Subscribes to this server's committed writes; the answer unsubscribes.
export const onCommit = (osprey: Osprey, subscriber: CommitSubscriber): (() => void) => {

    const { list } = subscribersOf(osprey);
    list.add(subscriber);
    return () => list.delete(subscriber);
};

// Where the errors of this server's subscribers are reported (the resources plugin: the server's log).
export const commitErrorsTo = (osprey: Osprey, report: (error: unknown) => void): void => {

    subscribersOf(osprey).report = report;
};

// Reports an error of what ran after a commit where this server's subscribers' errors go (the server's log).
export const reportCommitError = (osprey: Osprey, error: unknown): void => subscribersOf(osprey).report(error);

// Tells every subscriber, one after the other, awaiting each, so that the answer follows them (an event is
// handed on before the client hears the write succeeded). The write is committed whatever a subscriber does: a
// subscriber's error is reported to the server's log and does not turn the answer into an error, which would
// tell the client a write failed that is in the database, and have it sent again.
export const notifyCommit = async (osprey: Osprey, commit: Commit): Promise<void> => {

    const found = servers.get(osprey);
    if (!found || (!commit.writes.length && !commit.actions.length)) {
        return;
    }

    for (const subscriber of [...found.list]) {
        try {
            await subscriber(commit);
        }
        catch (error) {
            found.report(error);
        }
    }
};
